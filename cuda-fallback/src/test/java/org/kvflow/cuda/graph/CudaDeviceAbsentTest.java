package org.kvflow.cuda.graph;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Test;
import org.kvflow.kernels.api.DeviceNotFoundException;
import org.kvflow.kernels.api.Devices;

/** The cuda backend is found by ServiceLoader; where there is no driver, asking for cuda says why, and auto does not pick it. */
class CudaDeviceAbsentTest {
    @Test
    void withoutADriverCudaIsRefusedWithTheReasonAndAutoChoosesAnotherDevice() {
        CudaBackend backend = new CudaBackend();
        assumeTrue(backend.devices().isEmpty(), () -> "a CUDA device is here (" + backend.devices() + "): the no-driver path is not reachable");
        assertThat(backend.name()).isEqualTo("cuda");
        assertThat(backend.unavailableReason()).startsWith("no CUDA driver (");
        assertThatThrownBy(() -> Devices.select("cuda")).isInstanceOf(DeviceNotFoundException.class)
                .hasMessageStartingWith("no kernel device 'cuda': found [").hasMessageContaining("; cuda: no CUDA driver (");
        assertThat(Devices.select("auto").backend()).isNotEqualTo("cuda");
    }
}
