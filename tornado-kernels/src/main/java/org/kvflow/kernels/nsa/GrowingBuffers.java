package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.ExecutionPlan;

/**
 * Device buffers sized for the largest call so far, with the plan over them. A call that needs
 * more closes them and builds new ones with every capacity doubled, or with exactly what the call
 * needs where doubled capacities would not fit in Java arrays; so a kernel is built once per
 * growth, not once per shape. The builder sees capacities of at least 1. Not thread-safe.
 *
 * @param <B> the buffers and their plan
 */
public final class GrowingBuffers<B> implements AutoCloseable {
    private final Function<long[], B> build;
    private final Function<B, ExecutionPlan> plan;
    private final Predicate<long[]> fits;
    private final long[] capacity;
    private @Nullable B current;

    /**
     * Buffers not built yet.
     *
     * @param dimensions how many capacities (queries, keys, …) the buffers have
     * @param build      makes buffers and their plan for the capacities it is given
     * @param plan       the plan of a set of buffers (closed when they are replaced)
     * @param fits       whether buffers of these capacities fit in Java arrays
     */
    public GrowingBuffers(int dimensions, Function<long[], B> build, Function<B, ExecutionPlan> plan, Predicate<long[]> fits) {
        this.build = build;
        this.plan = plan;
        this.fits = fits;
        this.capacity = new long[dimensions];
    }

    /**
     * Buffers with at least {@code needed} of every capacity (the caller checked that {@code needed} fits).
     *
     * @param needed one capacity per dimension
     * @return the buffers
     */
    public B atLeast(long... needed) {
        if (current != null && covers(needed)) {
            return current;
        }
        close();
        long[] doubled = new long[capacity.length];
        Arrays.setAll(doubled, i -> Math.max(needed[i], 2 * capacity[i]));
        long[] next = fits.test(atLeastOne(doubled)) ? doubled : needed.clone();
        System.arraycopy(next, 0, capacity, 0, capacity.length);
        current = build.apply(atLeastOne(next));
        return current;
    }

    private boolean covers(long[] needed) {
        for (int i = 0; i < capacity.length; i++) {
            if (needed[i] > capacity[i]) {
                return false;
            }
        }
        return true;
    }

    private static long[] atLeastOne(long[] c) {
        long[] out = new long[c.length];
        Arrays.setAll(out, i -> Math.max(1, c[i]));
        return out;
    }

    /** Frees the buffers; the next call builds new ones. */
    @Override
    public void close() {
        if (current != null) {
            plan.apply(current).close();
            current = null;
        }
    }
}
