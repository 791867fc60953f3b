package org.kvflow.operators.materialize;

import java.util.SplittableRandom;
import java.util.TreeSet;
import org.kvflow.operators.group.RequestState;

/**
 * Which query positions of a request the attention step evaluates: the first computed position
 * (just after the prefix hit), the last position, and seeded random ones in between, at most
 * {@code maxPerRequest} in all. Deterministic per request id, so shared and replicated runs
 * check the same positions.
 *
 * @param maxPerRequest the most positions a request is sampled at (0: none)
 * @param seed          the seed of the random positions
 */
public record QuerySampler(int maxPerRequest, long seed) {
    /** No attention checks (page planning, throughput runs). */
    public static final QuerySampler NONE = new QuerySampler(0, 0);

    /** Checks the count. */
    public QuerySampler {
        if (maxPerRequest < 0) {
            throw new IllegalArgumentException("maxPerRequest must be >= 0, was " + maxPerRequest);
        }
    }

    /**
     * The sampled positions of {@code state} inside {@code [from, to)}, ascending.
     *
     * @param state the request
     * @param from  the chunk's first token
     * @param to    one past its last
     * @return the positions
     */
    public long[] positions(RequestState state, long from, long to) {
        if (maxPerRequest == 0) {
            return new long[0];
        }
        long first = state.prefixTokens();
        long last = state.request().seqLen() - 1;
        TreeSet<Long> chosen = new TreeSet<>();
        chosen.add(first);
        if (maxPerRequest > 1) {
            chosen.add(last);
        }
        SplittableRandom random = new SplittableRandom(seed ^ state.id().hashCode());
        long span = last - first + 1;
        int target = (int) Math.min(maxPerRequest, span);
        while (chosen.size() < target) {
            chosen.add(first + random.nextLong(span));
        }
        return chosen.subSet(from, to).stream().mapToLong(Long::longValue).toArray();
    }
}
