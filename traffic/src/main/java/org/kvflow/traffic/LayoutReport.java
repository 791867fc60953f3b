package org.kvflow.traffic;

import java.util.Map;

/**
 * What one layout made of a trace.
 *
 * @param layout            {@code shared} or {@code replicated}
 * @param requests          requests in the trace
 * @param completed         requests served
 * @param refused           requests refused, by error code
 * @param inputTokens       prompt tokens of the whole trace
 * @param hitTokens         prompt tokens served from the device prefix cache
 * @param recomputedTokens  prompt tokens of served requests that were computed
 * @param peakPagesPerRank  the most physical pages one rank held at once (the ranks' peak over their count)
 * @param seconds           wall time of the replay
 * @param latency           seconds from each request's arrival to its result (queueing included)
 */
public record LayoutReport(String layout, int requests, int completed, Map<String, Long> refused, long inputTokens, long hitTokens,
                           long recomputedTokens, long peakPagesPerRank, double seconds, Latencies latency) {
    /** {@return prompt tokens served from the device prefix cache over all prompt tokens} */
    public double hitRatio() {
        return inputTokens == 0 ? 0 : (double) hitTokens / inputTokens;
    }

    /** {@return requests replayed per second of wall time} */
    public double requestsPerSecond() {
        return seconds == 0 ? 0 : requests / seconds;
    }
}
