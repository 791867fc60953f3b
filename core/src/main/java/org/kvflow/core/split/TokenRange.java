package org.kvflow.core.split;

/** Half-open token range {@code [start, end)} of a batch's extend tokens. */
public record TokenRange(long start, long end) {
    public TokenRange {
        if (start < 0 || end < start) {
            throw new IllegalArgumentException("bad token range [" + start + ", " + end + ")");
        }
    }

    public long length() {
        return end - start;
    }
}
