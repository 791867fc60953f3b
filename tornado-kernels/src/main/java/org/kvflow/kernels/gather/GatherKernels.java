package org.kvflow.kernels.gather;

import java.util.stream.IntStream;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;

/**
 * Page gather, scatter and direct copy over pools of 8-byte words ({@link LongPages}, which may
 * span several chunks): the reference semantics, run as-is by the Java backend (in parallel over
 * pages); the OpenCL backend runs its twin of each, the cuda backend a hand-written kernel. Both
 * sides must have the same page size (checked, on every backend). Callers validate page ids first
 * ({@link PageGather}); the bodies do not check them (the cuda device does, before its launch).
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

    /**
     * {@code to} page {@code toIds[k]} ← {@code from} page {@code fromIds[k]}, for every k: a
     * direct copy between two pools (lists of the same length; {@code toIds} distinct).
     *
     * @throws IllegalArgumentException if the lists differ in length
     */
    public static void copyPages(LongPages from, IntArray fromIds, IntArray toIds, LongPages to) {
        from.requireSamePageSize(to);
        requireSameLength(fromIds, toIds);
        IntStream.range(0, fromIds.getSize()).parallel().forEach(k -> from.copyPage(fromIds.get(k), to, toIds.get(k)));
    }

    /** @throws IllegalArgumentException if the page lists of a direct copy differ in length */
    public static void requireSameLength(IntArray fromIds, IntArray toIds) {
        if (fromIds.getSize() != toIds.getSize()) {
            throw new IllegalArgumentException("page lists of a copy differ in length: " + fromIds.getSize() + " vs " + toIds.getSize());
        }
    }
}
