package org.kvflow.traffic;

import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What one layout made of a trace.
 *
 * @param layout            {@code shared} or {@code replicated}
 * @param requests          requests in the trace
 * @param completed         requests served
 * @param refused           requests refused, by error code
 * @param inputTokens       prompt tokens of the whole trace
 * @param deviceHitTokens   prompt tokens served from the device prefix cache
 * @param hostHitTokens     prompt tokens loaded from the host tier instead of computed
 * @param recomputedTokens  prompt tokens of served requests that were computed
 * @param peakPagesPerRank  the most physical pages one rank held at once (the ranks' peak over their count)
 * @param evictedPages      cached prefix pages the device cache pushed out to make room (logical pages)
 * @param queued            paced requests the pipeline took later than they arrived (backpressure held them); 0 unpaced
 * @param queueWait         how long each paced request waited past its arrival for the pipeline to take it; empty unpaced
 * @param seconds           wall time of the replay
 * @param latencySeconds    each request's seconds from arrival to its result (queueing included), wall time of this run, in the order results came
 * @param timeline          the pools and hits as each request was served, in the order results came
 * @param modelled          time to first token under a cost model, or null when none was given
 * @param warmStartTokens   prompt tokens a restart's run restored from the journal into its device cache before serving (0 without)
 */
public record LayoutReport(String layout, int requests, int completed, Map<String, Long> refused, long inputTokens, long deviceHitTokens, long hostHitTokens,
                           long recomputedTokens, long peakPagesPerRank, long evictedPages, int queued, Latencies queueWait, double seconds,
                           List<Double> latencySeconds, List<TracePoint> timeline, @Nullable ModelledTtft modelled, long warmStartTokens) {
    /** Copies the lists. */
    public LayoutReport {
        refused = Map.copyOf(refused);
        latencySeconds = List.copyOf(latencySeconds);
        timeline = List.copyOf(timeline);
    }

    /** {@return the percentiles of {@link #latencySeconds}} */
    public Latencies latency() {
        return Latencies.of(latencySeconds);
    }

    /** {@return prompt tokens served from a cache, device or host} */
    public long hitTokens() {
        return deviceHitTokens + hostHitTokens;
    }

    /** {@return prompt tokens served from a cache, device or host, over all prompt tokens} */
    public double hitRatio() {
        return inputTokens == 0 ? 0 : (double) hitTokens() / inputTokens;
    }

    /** {@return requests replayed per second of wall time} */
    public double requestsPerSecond() {
        return seconds == 0 ? 0 : requests / seconds;
    }
}
