package org.kvflow.kernels.rows;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.kvflow.kernels.api.Devices;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.PageMemory;

class DevicePoolsTest {
    @Test
    void poolsOfANonCudaDeviceLiveOnTheHeapAndReachNoKernelArrays() {
        try (PageMemory memory = DevicePools.memoryFor(Devices.java())) {
            assertThat(memory).isInstanceOf(HeapPageMemory.class);
            assertThat(memory.capability(DeviceRowAccess.class)).as("the heap fills no device arrays in place").isEmpty();
        }
    }
}
