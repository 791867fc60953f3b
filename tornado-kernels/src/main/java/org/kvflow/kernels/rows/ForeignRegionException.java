package org.kvflow.kernels.rows;

import org.kvflow.core.KvflowException;
import org.kvflow.kernels.api.Device;

/** A device region handed to a page memory that cannot reach the device it lies on. */
public final class ForeignRegionException extends KvflowException {
    public ForeignRegionException(String what, Device device, String memory) {
        super(what + ": on " + device.selector() + ", which the " + memory + " page memory does not reach");
    }
}
