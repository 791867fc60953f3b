package org.kvflow.traffic;

import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The prefix hits of a trace with a cache that never forgets: per request, its leading blocks
 * whose hash ids an earlier request had, as tokens (capped at the prompt's length).
 */
public final class IdealHits {
    private IdealHits() {}

    /**
     * Hit tokens of each request, in trace order.
     *
     * @param trace the requests, in arrival order
     * @return per request, the tokens an unbounded prefix cache would have held
     */
    public static long[] perRequest(List<TraceRequest> trace) {
        Set<Long> seen = new HashSet<>();
        long[] hits = new long[trace.size()];
        for (int r = 0; r < trace.size(); r++) {
            TraceRequest request = trace.get(r);
            int leading = 0;
            while (leading < request.hashIds().length && seen.contains(request.hashIds()[leading])) {
                leading++;
            }
            hits[r] = Math.min((long) leading * TraceRequest.BLOCK, request.inputLength());
            for (long id : request.hashIds()) {
                seen.add(id);
            }
        }
        return hits;
    }

    /**
     * Hit tokens over input tokens, with an unbounded prefix cache.
     *
     * @param trace the requests, in arrival order
     * @return the ratio
     */
    public static double ratio(List<TraceRequest> trace) {
        long[] hits = perRequest(trace);
        long total = 0;
        long hit = 0;
        for (int r = 0; r < hits.length; r++) {
            hit += hits[r];
            total += trace.get(r).inputLength();
        }
        return total == 0 ? 0 : (double) hit / total;
    }
}
