package org.kvflow.cuda;

import jcuda.driver.CUdeviceptr;

/**
 * A device pointer whose address can be read, so a table of buffer addresses can be staged with
 * the page lists and go to the device in the same asynchronous copy.
 */
final class DevicePointer extends CUdeviceptr {
    /** The device (or unified) address this pointer holds; 0 before the driver filled it. */
    long address() {
        return getNativePointer() + getByteOffset();
    }
}
