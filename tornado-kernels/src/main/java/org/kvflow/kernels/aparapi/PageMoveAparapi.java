package org.kvflow.kernels.aparapi;

import java.util.ArrayList;
import java.util.List;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.gather.GatherKernels;

/**
 * Twin of {@code GatherKernels.gatherPages}, {@code scatterPages} and {@code copyPages} over pools of up to
 * {@link #MAX_CHUNKS} chunks a side, in one launch: one work-group of 256 per listed page; each
 * work-item walks the page with a stride of 256 words, four loads then four stores per trip, so
 * four loads are in flight (the shape that came closest to HBM peak when we measured the variants, docs/benchmarks.md). A page's
 * chunk is the same for its whole work-group, so choosing the chunk array does not diverge.
 * {@code mode} picks which side the page list indexes: the source (gather), the destination
 * (scatter), or the source with a second list for the destination (copy).
 */
final class PageMoveAparapi extends AparapiTask {
    /** Chunks a side the twin binds: 4 × 2 GiB. */
    static final int MAX_CHUNKS = 4;
    static final int GATHER = 0;
    static final int SCATTER = 1;
    static final int COPY = 2;

    long[] from0 = new long[1];
    long[] from1 = new long[1];
    long[] from2 = new long[1];
    long[] from3 = new long[1];
    long[] to0 = new long[1];
    long[] to1 = new long[1];
    long[] to2 = new long[1];
    long[] to3 = new long[1];
    int[] pageIds = new int[1];
    /** The destination list of a copy; a stand-in otherwise. */
    int[] toIds = new int[1];
    int pageElems;
    int fromPagesPerChunk;
    int toPagesPerChunk;
    int mode;
    /** Stand-ins bound where a side has fewer chunks than {@link #MAX_CHUNKS}. */
    private final List<long[]> placeholders = new ArrayList<>();

    PageMoveAparapi(int mode) {
        this.mode = mode;
    }

    @Override
    void bind(List<Object> args) {
        LongPages from = (LongPages) args.get(0);
        LongPages to = (LongPages) args.getLast();
        from.requireSamePageSize(to);
        for (LongPages side : List.of(from, to)) {
            if (side.chunkCount() > MAX_CHUNKS) {
                throw new IllegalArgumentException("the OpenCL page move takes pools of at most " + MAX_CHUNKS + " chunks, not " + side);
            }
        }
        from0 = chunk(from, 0);
        from1 = chunk(from, 1);
        from2 = chunk(from, 2);
        from3 = chunk(from, 3);
        to0 = chunk(to, 0);
        to1 = chunk(to, 1);
        to2 = chunk(to, 2);
        to3 = chunk(to, 3);
        pageIds = ((IntArray) args.get(1)).toHeapArray();
        if (mode == COPY) {
            GatherKernels.requireSameLength((IntArray) args.get(1), (IntArray) args.get(2));
            toIds = ((IntArray) args.get(2)).toHeapArray();
        }
        pageElems = from.pageElems();
        fromPagesPerChunk = from.pagesPerChunk();
        toPagesPerChunk = to.pagesPerChunk();
    }

    private long[] chunk(LongPages side, int c) {
        if (c < side.chunkCount()) {
            return side.chunk(c).toHeapArray();
        }
        long[] placeholder = new long[1];
        placeholders.add(placeholder);
        return placeholder;
    }

    /** The stand-ins of absent chunks (and of the second list) need a device buffer too. */
    @Override
    void putOwn() {
        placeholders.forEach(this::put);
        if (mode != COPY) {
            put(toIds);
        }
    }

    @Override
    int globalSize() {
        return pageIds.length * LOCAL;
    }

    /** (A local assigned in an if-chain is lost by Aparapi's decompiler; a ternary translates.) */
    private long load(int chunk, int i) {
        return chunk == 0 ? from0[i] : chunk == 1 ? from1[i] : chunk == 2 ? from2[i] : from3[i];
    }

    private void store(int chunk, int i, long v) {
        if (chunk == 0) {
            to0[i] = v;
        } else if (chunk == 1) {
            to1[i] = v;
        } else if (chunk == 2) {
            to2[i] = v;
        } else {
            to3[i] = v;
        }
    }

    @Override
    public void run() {
        int k = getGroupId();
        int srcPage = pageIds[k];
        int dstPage = k;
        if (mode == SCATTER) {
            srcPage = k;
            dstPage = pageIds[k];
        }
        if (mode == COPY) {
            dstPage = toIds[k];
        }
        int sc = srcPage / fromPagesPerChunk;
        int src = (srcPage - sc * fromPagesPerChunk) * pageElems;
        int dc = dstPage / toPagesPerChunk;
        int dst = (dstPage - dc * toPagesPerChunk) * pageElems;
        int j = getLocalId();
        for (; j + 3 * LOCAL < pageElems; j += 4 * LOCAL) {
            long a = load(sc, src + j);
            long b = load(sc, src + j + LOCAL);
            long c = load(sc, src + j + 2 * LOCAL);
            long d = load(sc, src + j + 3 * LOCAL);
            store(dc, dst + j, a);
            store(dc, dst + j + LOCAL, b);
            store(dc, dst + j + 2 * LOCAL, c);
            store(dc, dst + j + 3 * LOCAL, d);
        }
        for (; j < pageElems; j += LOCAL) {
            store(dc, dst + j, load(sc, src + j));
        }
    }
}
