package org.kvflow.cuda.graph;

import org.kvflow.core.model.KvLayout;

/**
 * How one {@code IndexerKernels.scoreFp8} call runs on the cuda device: on the prebuilt
 * tensor-core kernel ({@code index_scores.cu}) when its index dim is a multiple of 16 up to 128,
 * else on the twin's translation; and, for the prebuilt kernel, its grid: blocks of
 * {@value #ROWS} queries by spans of key tiles (8 keys each). A span is as long as it takes to
 * give every multiprocessor {@value #BLOCKS_PER_MULTIPROCESSOR} blocks, at most {@value #MAX_SPAN}
 * tiles (a longer span reloads the block's queries less often but leaves fewer blocks to spread),
 * and at least what keeps the grid's second dimension within CUDA's 65,535.
 *
 * @param steps       the prebuilt kernel's entry ({@code index_scores_d<steps>}, dim = 16·steps), or 0 for the twin
 * @param queryBlocks the grid's first dimension
 * @param spans       the grid's second dimension
 * @param span        key tiles per block
 */
record ScoreGrid(int steps, int queryBlocks, int spans, int span) {
    /** Threads per block: 8 warps (index_scores.cu). */
    static final int THREADS = 256;
    /** Queries per block: 16 rows a warp. */
    static final int ROWS = 128;
    /** Keys per tile, one m16n8 product's columns. */
    static final int TILE = 8;
    static final int MAX_SPAN = 256;
    /**
     * Blocks a span length aims at per multiprocessor: two, what its registers let one hold at once
     * (one wave). bench/device/scores_variants.cu on an H100: 128 × 65,536 took 32.4 µs in 256 blocks,
     * 39.5 in 512, 47.3 in 128.
     */
    static final int BLOCKS_PER_MULTIPROCESSOR = 2;
    private static final int MAX_GRID_Y = 65_535;

    /** The run of a call of shape {@code {dim, nq, nk}} on a device of {@code multiprocessors}. */
    static ScoreGrid of(int dim, int nq, int nk, int multiprocessors) {
        if (dim % 16 != 0 || dim < 16 || dim > 128) {
            return new ScoreGrid(0, 0, 0, 0);
        }
        int queryBlocks = (nq + ROWS - 1) / ROWS;
        int tiles = (nk + TILE - 1) / TILE;
        if (queryBlocks == 0 || tiles == 0) {
            return new ScoreGrid(dim / 16, 0, 0, 0);
        }
        int spansWanted = Math.max(1, BLOCKS_PER_MULTIPROCESSOR * multiprocessors / queryBlocks);
        int span = Math.max(ceilDiv(tiles, MAX_GRID_Y), Math.min(MAX_SPAN, ceilDiv(tiles, spansWanted)));
        return new ScoreGrid(dim / 16, queryBlocks, ceilDiv(tiles, span), span);
    }

    /** Whether the prebuilt kernel runs this call (else the twin does). */
    boolean prebuilt() {
        return steps > 0;
    }

    /** Whether there is anything to launch. */
    boolean empty() {
        return queryBlocks == 0;
    }

    /**
     * Checks that a call of shape {@code {dim, nq, nk}} stays inside its arrays, before any launch
     * reads or writes past them.
     *
     * @throws IllegalArgumentException naming {@code task}, the shape and the first array too short
     */
    static void requireFits(String task, int dim, int nq, int nk, long queries, long keys, long scales, long scores) {
        if (dim <= 0 || nq < 0 || nk < 0) {
            throw new IllegalArgumentException(task + ": shape {" + dim + ", " + nq + ", " + nk + "} is not {dim > 0, queries ≥ 0, keys ≥ 0}");
        }
        need(task, dim, nq, nk, "queries", (long) nq * dim, queries);
        need(task, dim, nq, nk, "keys", (long) nk * dim, keys);
        need(task, dim, nq, nk, "key scales", (long) nk * KvLayout.tiles(dim), scales);
        need(task, dim, nq, nk, "scores", (long) nq * nk, scores);
    }

    private static void need(String task, int dim, int nq, int nk, String array, long needed, long held) {
        if (needed > held) {
            throw new IllegalArgumentException(task + ": shape {" + dim + ", " + nq + ", " + nk + "} needs " + needed + " " + array
                    + " values; the array holds " + held);
        }
    }

    private static int ceilDiv(int a, int b) {
        return (a + b - 1) / b;
    }
}
