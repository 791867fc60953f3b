package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** A read or write of bytes {@code [offset, offset + length)} that does not lie inside its buffer; raised before any byte moves. */
public final class ByteRangeException extends KvflowException {
    private final long offset;
    private final long length;

    public ByteRangeException(String buffer, long offset, long length, long bytes) {
        super(buffer + ": bytes [" + offset + ", " + (offset + length) + ") lie outside [0, " + bytes + ")");
        this.offset = offset;
        this.length = length;
    }

    public long offset() {
        return offset;
    }

    public long length() {
        return length;
    }

    /** @throws ByteRangeException unless {@code [offset, offset + length)} lies inside {@code buffer} */
    public static void check(PageBuffer buffer, long offset, long length) {
        if (offset < 0 || length < 0 || offset + length > buffer.bytes()) {
            throw new ByteRangeException(buffer.label(), offset, length, buffer.bytes());
        }
    }
}
