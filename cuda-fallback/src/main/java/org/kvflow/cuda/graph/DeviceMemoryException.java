package org.kvflow.cuda.graph;

import org.kvflow.core.KvflowException;

/**
 * The device could not allocate a buffer: names the buffer, the bytes asked for and the device's
 * free and total memory at that moment. Whatever the plan had allocated before is freed.
 */
public final class DeviceMemoryException extends KvflowException {
    private final long requested;

    DeviceMemoryException(String what, long requested, long free, long total, Throwable cause) {
        super("cannot allocate " + requested + " bytes for " + what + " on the device: " + free + " of " + total + " bytes free", cause);
        this.requested = requested;
    }

    /** The bytes asked for. */
    public long requested() {
        return requested;
    }
}
