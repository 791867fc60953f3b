package org.kvflow.transfer;

import java.util.stream.LongStream;

/**
 * A contiguous run of pages on both sides: source pages {@code srcStart .. srcStart+length-1}
 * go to destination pages {@code dstStart .. dstStart+length-1}; one copy per layer and pool.
 *
 * @param srcStart the first source page
 * @param dstStart the first destination page
 * @param length   pages in the run
 */
public record PageRun(long srcStart, long dstStart, int length) {
    /** Checks the run. */
    public PageRun {
        if (length < 1) {
            throw new IllegalArgumentException("a run has at least one page, was " + length);
        }
    }

    /** {@return the source pages} */
    public long[] src() {
        return LongStream.range(srcStart, srcStart + length).toArray();
    }

    /** {@return the destination pages} */
    public long[] dst() {
        return LongStream.range(dstStart, dstStart + length).toArray();
    }
}
