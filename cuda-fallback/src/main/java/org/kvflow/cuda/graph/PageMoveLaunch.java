package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import java.util.List;
import java.util.Set;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.gather.PageOutOfRangeException;

/**
 * {@code GatherKernels.gatherPages} and {@code scatterPages} on the cuda device, run by the
 * hand-written {@code page_move} kernel over one allocation per pool (a pool of any size is one
 * launch). The page list lives on the device; it is checked against the pool it indexes before
 * the launch whenever it changed (on the host copy as it is uploaded, or read back once if a
 * kernel wrote it), so a bad list moves nothing.
 */
final class PageMoveLaunch implements Launch {
    /** The kernels this launch runs in place of their twins. */
    static final Set<String> KERNELS = Set.of("org.kvflow.kernels.gather.GatherKernels.gatherPages",
            "org.kvflow.kernels.gather.GatherKernels.scatterPages");
    private static final int BLOCK = 128;
    /** Blocks per page, each a slice of it (the shape bench/device/copy_variants.cu measured at 0.97× a contiguous copy). */
    private static final int SLICES = 4;

    private final String task;
    private final DeviceArray from;
    private final DeviceArray ids;
    private final DeviceArray to;
    private final boolean scatter;
    private final long indexedPages;
    private final int count;
    private final int vec;
    private final CUfunction function;

    /**
     * @throws IllegalArgumentException if the pools' pages differ in size, or the side the list
     *         does not index has fewer pages than the list has entries
     */
    PageMoveLaunch(String task, String kernel, List<Object> args, DeviceArrays buffers, PageMoveModule module) {
        this.task = task;
        this.scatter = kernel.endsWith("scatterPages");
        LongPages src = (LongPages) args.get(0);
        IntArray list = (IntArray) args.get(1);
        LongPages dst = (LongPages) args.get(2);
        src.requireSamePageSize(dst);
        LongPages listed = scatter ? dst : src;
        LongPages sequential = scatter ? src : dst;
        if (sequential.pageCount() < list.getSize()) {
            throw new IllegalArgumentException(task + ": a list of " + list.getSize() + " pages needs as many in " + sequential
                    + ", which has " + sequential.pageCount());
        }
        this.from = buffers.of(src, task + " source pool");
        this.ids = buffers.of(list, task + " page list");
        this.to = buffers.of(dst, task + " destination pool");
        this.indexedPages = listed.pageCount();
        this.count = list.getSize();
        boolean wide = src.pageElems() % 2 == 0;
        this.vec = wide ? src.pageElems() / 2 : src.pageElems();
        this.function = wide ? module.v4() : module.v2();
        if ((long) count * SLICES > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(task + ": " + count + " pages exceed one launch (at most " + Integer.MAX_VALUE / SLICES + ")");
        }
    }

    @Override
    public String task() {
        return task;
    }

    @Override
    public List<DeviceArray> reads() {
        return List.of(from, ids);
    }

    @Override
    public List<DeviceArray> writes() {
        return List.of(to);
    }

    @Override
    public long check(boolean mayRead) {
        if (ids.checked || (!mayRead && !ids.hostCurrent)) {
            return 0;
        }
        long read = ids.ensureOnHost();
        IntArray list = (IntArray) ids.array();
        for (int k = 0; k < count; k++) {
            int page = list.get(k);
            if (page < 0 || page >= indexedPages) {
                throw new PageOutOfRangeException(task + " page list", k, page, indexedPages);
            }
        }
        ids.checked = true;
        return read;
    }

    @Override
    public void enqueue(CUstream stream) {
        if (count == 0) {
            return;
        }
        Pointer params = Pointer.to(Pointer.to(from.address()), Pointer.to(to.address()), Pointer.to(ids.address()),
                Pointer.to(new int[] {vec}), Pointer.to(new int[] {SLICES}), Pointer.to(new int[] {scatter ? 1 : 0}));
        cuLaunchKernel(function, count * SLICES, 1, 1, BLOCK, 1, 1, 0, stream, params, null);
    }
}
