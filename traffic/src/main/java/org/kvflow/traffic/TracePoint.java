package org.kvflow.traffic;

/**
 * The pools and the hits so far when one request of a replay was served, for charts over the
 * trace's time.
 *
 * @param traceSeconds       the request's timestamp, in seconds from the trace's first
 * @param pagesPerRank       physical pages in use on the average rank (the prefix cache's included)
 * @param cachedPrefixTokens tokens of prefix the device cache holds (its logical pages, in tokens)
 * @param hitTokens          prompt tokens served from a cache (device or host) so far, over the served requests
 * @param inputTokens        prompt tokens of the requests served so far
 */
public record TracePoint(double traceSeconds, double pagesPerRank, long cachedPrefixTokens, long hitTokens, long inputTokens) {
    /** {@return the hit ratio of the requests served so far} */
    public double hitRatio() {
        return inputTokens == 0 ? 0 : (double) hitTokens / inputTokens;
    }
}
