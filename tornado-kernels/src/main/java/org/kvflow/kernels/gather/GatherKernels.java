package org.kvflow.kernels.gather;

import java.util.stream.IntStream;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;

/**
 * Page gather and scatter over pools of 8-byte words ({@link LongPages}, which may span several
 * chunks): the reference semantics, run as-is by the Java backend (in parallel over pages); the
 * OpenCL backend runs its twin of each. Both sides must have the same page size (checked, on every
 * backend). Callers validate page ids first ({@link PageGather}); the bodies do not check them.
 */
public final class GatherKernels {
    private GatherKernels() {}

    /** {@code view} page k ← {@code pool} page {@code pageIds[k]}, for every k. */
    public static void gatherPages(LongPages pool, IntArray pageIds, LongPages view) {
        pool.requireSamePageSize(view);
        IntStream.range(0, pageIds.getSize()).parallel().forEach(k -> pool.copyPage(pageIds.get(k), view, k));
    }

    /** {@code pool} page {@code pageIds[k]} ← {@code view} page k, for every k (ids must be distinct). */
    public static void scatterPages(LongPages view, IntArray pageIds, LongPages pool) {
        view.requireSamePageSize(pool);
        IntStream.range(0, pageIds.getSize()).parallel().forEach(k -> view.copyPage(k, pool, pageIds.get(k)));
    }
}
