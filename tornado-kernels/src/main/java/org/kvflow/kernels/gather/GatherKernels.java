package org.kvflow.kernels.gather;

import java.util.stream.IntStream;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;

/**
 * Page gather and scatter over pools viewed as 8-byte words: the reference semantics, run as-is
 * by the Java backend (in parallel over pages); the OpenCL backend runs its twin of each. Callers validate page ids first
 * ({@link PageGather}); the bodies do not check.
 */
public final class GatherKernels {
    private GatherKernels() {}

    /** {@code view} page k ← {@code pool} page {@code pageIds[k]}, for every k. */
    public static void gatherPages(LongArray pool, IntArray pageIds, int pageElems, LongArray view) {
        IntStream.range(0, pageIds.getSize()).parallel().forEach(k ->
                System.arraycopy(pool.toHeapArray(), pageIds.get(k) * pageElems, view.toHeapArray(), k * pageElems, pageElems));
    }

    /** {@code pool} page {@code pageIds[k]} ← {@code view} page k, for every k (ids must be distinct). */
    public static void scatterPages(LongArray view, IntArray pageIds, int pageElems, LongArray pool) {
        IntStream.range(0, pageIds.getSize()).parallel().forEach(k ->
                System.arraycopy(view.toHeapArray(), k * pageElems, pool.toHeapArray(), pageIds.get(k) * pageElems, pageElems));
    }
}
