package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** A buffer larger than its memory can hold in one piece (a Java array: under 2 GiB); split the pool. */
public final class BufferTooLargeException extends KvflowException {
    private final long bytes;

    public BufferTooLargeException(String buffer, long pages, int pageBytes) {
        super(buffer + ": " + pages + " pages of " + pageBytes + " B need " + pages * pageBytes
                + " bytes, more than one Java array holds (2 GiB); split the pool");
        this.bytes = pages * pageBytes;
    }

    /** The bytes asked for. */
    public long bytes() {
        return bytes;
    }
}
