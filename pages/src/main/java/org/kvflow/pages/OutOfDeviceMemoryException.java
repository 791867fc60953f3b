package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/**
 * A page memory had no room for a buffer, or for a holder's pages: names what was asked for, its
 * bytes and the bytes the device had free. Nothing of the failed request stays allocated.
 */
public final class OutOfDeviceMemoryException extends KvflowException {
    private final String memory;
    private final long askedBytes;
    private final long freeBytes;

    /**
     * @param what       what did not fit, with its sizes ({@code rank 3 mla layer 0 (65536 pages of 41984 B)})
     * @param askedBytes the bytes asked for
     * @param freeBytes  the device's free bytes when it refused
     */
    public OutOfDeviceMemoryException(String memory, String what, long askedBytes, long freeBytes, Throwable cause) {
        super("page memory '" + memory + "' has no room for " + what + ": " + askedBytes + " B asked, " + freeBytes + " B free", cause);
        this.memory = memory;
        this.askedBytes = askedBytes;
        this.freeBytes = freeBytes;
    }

    /** The name of the memory that refused ({@code cuda}). */
    public String memory() {
        return memory;
    }

    public long askedBytes() {
        return askedBytes;
    }

    public long freeBytes() {
        return freeBytes;
    }
}
