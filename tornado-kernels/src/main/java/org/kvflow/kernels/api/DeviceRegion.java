package org.kvflow.kernels.api;

import java.util.Objects;

/**
 * Where a task-graph array of an open plan lies in device memory: the device, the address and
 * the size in bytes. A page memory of the same device reads or fills it in place
 * ({@link ExecutionPlan#deviceRegion}); it is valid until its plan closes.
 */
public record DeviceRegion(Device device, long address, long bytes) {
    /** @throws IllegalArgumentException if the address is 0 or the size negative */
    public DeviceRegion {
        Objects.requireNonNull(device, "device");
        if (address == 0 || bytes < 0) {
            throw new IllegalArgumentException("device region at " + address + " of " + bytes + " bytes on " + device);
        }
    }

    /**
     * @throws IllegalArgumentException naming {@code what} if the region holds fewer than {@code needed} bytes
     */
    public DeviceRegion requireBytes(String what, long needed) {
        if (bytes < needed) {
            throw new IllegalArgumentException(what + ": the device region holds " + bytes + " bytes; " + needed + " are needed");
        }
        return this;
    }
}
