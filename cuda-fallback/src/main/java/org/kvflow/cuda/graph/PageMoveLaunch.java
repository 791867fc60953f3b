package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import jcuda.Pointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.gather.GatherKernels;
import org.kvflow.pages.PageOutOfRangeException;

/**
 * {@code GatherKernels.gatherPages}, {@code scatterPages} and {@code copyPages} on the cuda
 * device, run by the hand-written {@code page_move} kernel over one allocation per pool (a pool of
 * any size is one launch). Page lists live on the device; each is checked against the pool it
 * indexes before the launch whenever it changed (on the host copy as it is uploaded, or read back
 * once if a kernel wrote it), so a bad list moves nothing.
 */
final class PageMoveLaunch implements Launch {
    /** The kernels this launch runs in place of their twins, with the kernel's mode. */
    static final Map<String, Integer> KERNELS = Map.of("org.kvflow.kernels.gather.GatherKernels.gatherPages", 0,
            "org.kvflow.kernels.gather.GatherKernels.scatterPages", 1, "org.kvflow.kernels.gather.GatherKernels.copyPages", 2);
    private static final int BLOCK = 128;
    /** Blocks per page, each a slice of it (the fastest shape bench/device/copy_variants.cu measured). */
    private static final int SLICES = 4;

    /** A page list and the pool its entries index. */
    private record Indexed(DeviceArray list, LongPages pool, String name) {}

    private final String task;
    private final int mode;
    private final DeviceArray from;
    private final DeviceArray to;
    private final DeviceArray ids;
    private final DeviceArray toIds;
    private final List<Indexed> lists = new ArrayList<>();
    private final int count;
    private final int vec;
    private final CUfunction function;

    /**
     * @throws IllegalArgumentException if the pools' pages differ in size, a copy's lists differ in
     *         length, or a side no list indexes has fewer pages than the list has entries
     */
    PageMoveLaunch(String task, String kernel, List<Object> args, DeviceArrays buffers, PageMoveModule module) {
        this.task = task;
        this.mode = KERNELS.get(kernel);
        LongPages src = (LongPages) args.get(0);
        LongPages dst = (LongPages) args.getLast();
        src.requireSamePageSize(dst);
        IntArray list = (IntArray) args.get(1);
        this.count = list.getSize();
        this.from = buffers.of(src, task + " source pool");
        this.to = buffers.of(dst, task + " destination pool");
        this.ids = buffers.of(list, task + " page list");
        if (mode == 2) {
            IntArray second = (IntArray) args.get(2);
            GatherKernels.requireSameLength(list, second);
            this.toIds = buffers.of(second, task + " destination page list");
            lists.add(new Indexed(ids, src, " source page list"));
            lists.add(new Indexed(toIds, dst, " destination page list"));
        } else {
            this.toIds = ids;
            LongPages sequential = mode == 0 ? dst : src;
            if (sequential.pageCount() < count) {
                throw new IllegalArgumentException(task + ": a list of " + count + " pages needs as many in " + sequential
                        + ", which has " + sequential.pageCount());
            }
            lists.add(new Indexed(ids, mode == 0 ? src : dst, " page list"));
        }
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

    /** A gather writes every page of its destination; a scatter or copy only listed ones, so the rest must be there first. */
    @Override
    public List<DeviceArray> reads() {
        return mode == 0 ? List.of(from, ids) : mode == 1 ? List.of(from, ids, to) : List.of(from, ids, toIds, to);
    }

    @Override
    public List<DeviceArray> writes() {
        return List.of(to);
    }

    @Override
    public long check(boolean mayRead) {
        long read = 0;
        for (Indexed l : lists) {
            DeviceArray d = l.list();
            if (d.checked || (!mayRead && !d.hostCurrent)) {
                continue;
            }
            read += d.ensureOnHost();
            IntArray entries = (IntArray) d.array();
            long pages = l.pool().pageCount();
            for (int k = 0; k < count; k++) {
                int page = entries.get(k);
                if (page < 0 || page >= pages) {
                    throw new PageOutOfRangeException(task + l.name(), k, page, pages);
                }
            }
            d.checked = true;
        }
        return read;
    }

    @Override
    public void enqueue(CUstream stream) {
        if (count == 0) {
            return;
        }
        Pointer params = Pointer.to(Pointer.to(from.address()), Pointer.to(to.address()), Pointer.to(ids.address()),
                Pointer.to(toIds.address()), Pointer.to(new int[] {vec}), Pointer.to(new int[] {SLICES}), Pointer.to(new int[] {mode}));
        cuLaunchKernel(function, count * SLICES, 1, 1, BLOCK, 1, 1, 0, stream, params, null);
    }
}
