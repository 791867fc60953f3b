package org.kvflow.cuda;

import jcuda.driver.CUdeviceptr;

/**
 * A device pointer whose address can be read, so a table of buffer addresses can be staged with
 * the page lists and go to the device in the same asynchronous copy, and a task-graph array's
 * device region can be handed to the page memory.
 */
public final class DevicePointer extends CUdeviceptr {
    /** Empty, for the driver to fill. */
    public DevicePointer() {
    }

    /** A pointer to {@code address}, an address the driver gave out elsewhere (a task-graph array of the same context). */
    DevicePointer(long address) {
        super(new CUdeviceptr(), address);
    }

    /** The device (or unified) address this pointer holds; 0 before the driver filled it. */
    public long address() {
        return getNativePointer() + getByteOffset();
    }
}
