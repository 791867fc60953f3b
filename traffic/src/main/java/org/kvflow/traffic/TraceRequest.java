package org.kvflow.traffic;

/**
 * One line of a trace in the Mooncake format: when the request arrived, its prompt and output
 * lengths, and one hash id per 512-token block of its prompt (equal ids at equal positions: the
 * same prefix).
 *
 * @param line         the line's number in its file, from 1
 * @param timestampMs  arrival, milliseconds from the trace's start
 * @param inputLength  prompt tokens
 * @param outputLength generated tokens
 * @param hashIds      one id per block, the last one possibly partial
 */
public record TraceRequest(int line, long timestampMs, int inputLength, int outputLength, long[] hashIds) {
    /** Tokens per hash block. */
    public static final int BLOCK = 512;

    /**
     * When the request arrived, in seconds after a moment of the trace.
     *
     * @param startMs the moment, milliseconds from the trace's start (its first request's, usually)
     * @return seconds from it to this request's arrival
     */
    public double secondsAfter(long startMs) {
        return (timestampMs - startMs) / 1e3;
    }
}
