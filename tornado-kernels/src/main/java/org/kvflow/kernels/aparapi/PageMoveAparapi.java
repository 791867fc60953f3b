package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;

/**
 * Twin of {@code GatherKernels.gatherPages} and {@code scatterPages}: one work-group of 256 per
 * listed page; each work-item walks the page with a stride of 256 words, four loads then four
 * stores per trip, so four loads are in flight (the shape that reached 83 % of HBM peak,
 * TOOLCHAIN.md §10.1). {@code scatter} picks which side the page list indexes.
 */
public final class PageMoveAparapi extends AparapiTask {
    long[] from = new long[1];
    long[] to = new long[1];
    int[] pageIds = new int[1];
    int pageElems;
    int scatter;

    PageMoveAparapi(boolean scatter) {
        this.scatter = scatter ? 1 : 0;
    }

    @Override
    void bind(List<Object> args) {
        from = ((LongArray) args.get(0)).toHeapArray();
        pageIds = ((IntArray) args.get(1)).toHeapArray();
        pageElems = (Integer) args.get(2);
        to = ((LongArray) args.get(3)).toHeapArray();
    }

    @Override
    int globalSize() {
        return pageIds.length * LOCAL;
    }

    @Override
    public void run() {
        int k = getGroupId();
        int listed = pageIds[k] * pageElems;
        int dense = k * pageElems;
        int src = listed;
        int dst = dense;
        if (scatter == 1) {
            src = dense;
            dst = listed;
        }
        int j = getLocalId();
        for (; j + 3 * LOCAL < pageElems; j += 4 * LOCAL) {
            long a = from[src + j];
            long b = from[src + j + LOCAL];
            long c = from[src + j + 2 * LOCAL];
            long d = from[src + j + 3 * LOCAL];
            to[dst + j] = a;
            to[dst + j + LOCAL] = b;
            to[dst + j + 2 * LOCAL] = c;
            to[dst + j + 3 * LOCAL] = d;
        }
        for (; j < pageElems; j += LOCAL) {
            to[dst + j] = from[src + j];
        }
    }
}
