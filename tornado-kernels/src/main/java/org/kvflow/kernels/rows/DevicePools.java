package org.kvflow.kernels.rows;

import org.kvflow.kernels.api.Device;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;

/** The page memory a pipeline's pools live in when its kernels run on a given device. */
public final class DevicePools {
    private DevicePools() {}

    /**
     * The GPU's own memory for a {@code cuda} device, the Java heap for every other (OpenCL twins
     * copy from host arrays).
     */
    public static PageMemory memoryFor(Device device) {
        return device.backend().equals("cuda") ? PageMemories.open(selector(device)) : new HeapPageMemory();
    }

    /**
     * Checks that {@link #memoryFor} would find that memory here, without opening it.
     *
     * @throws org.kvflow.pages.MemoryUnavailableException if it would not
     */
    public static void checkMemoryFor(Device device) {
        PageMemories.check(device.backend().equals("cuda") ? selector(device) : "java");
    }

    private static String selector(Device device) {
        return "cuda:" + device.index();
    }
}
