package org.kvflow.kernels.gather;

import java.util.Objects;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * Full view ← owner pages on a kernel device: a pool of {@code pageElems}-word pages stays on
 * the device (copied once), each {@link #gather(int[])} sends a page list of fixed length
 * {@code pages}, validates it before any launch, and brings the view back. Not thread-safe;
 * close to free the device buffers.
 */
public final class PageGather implements AutoCloseable {
    private final int pageElems;
    private final int poolPages;
    private final IntArray pageIds;
    private final LongArray view;
    private final ExecutionPlan plan;

    /**
     * @throws IllegalArgumentException if the pool is not a whole number of pages, or a view of
     *         {@code pages} pages would not fit in one array
     */
    public PageGather(LongArray pool, int pageElems, int pages, Device device) {
        Objects.requireNonNull(pool, "pool");
        if (pageElems <= 0 || pool.getSize() % pageElems != 0) {
            throw new IllegalArgumentException("pool of " + pool.getSize() + " words is not a whole number of " + pageElems + "-word pages");
        }
        if (pages < 0 || (long) pages * pageElems > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("a view of " + pages + " pages of " + pageElems + " words does not fit one array");
        }
        this.pageElems = pageElems;
        this.poolPages = pool.getSize() / pageElems;
        this.pageIds = new IntArray(pages);
        this.view = new LongArray(pages * pageElems);
        TaskGraph graph = new TaskGraph("fullView")
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, pool)
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, pageIds)
                .task("gather", GatherKernels::gatherPages, pool, pageIds, pageElems, view)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, view);
        this.plan = new ExecutionPlan(graph.snapshot()).withDevice(device);
    }

    /**
     * Gathers the listed pages into the view (page k of the view is pool page {@code ids[k]}).
     *
     * @return the view: {@code ids.length × pageElems} words, reused by the next call
     * @throws PageOutOfRangeException naming the first id outside the pool, before any launch
     * @throws IllegalArgumentException if {@code ids} is not {@code pages} long
     */
    public long[] gather(int[] ids) {
        if (ids.length != pageIds.getSize()) {
            throw new IllegalArgumentException("page list of " + ids.length + " entries; this gather takes " + pageIds.getSize());
        }
        for (int k = 0; k < ids.length; k++) {
            if (ids[k] < 0 || ids[k] >= poolPages) {
                throw new PageOutOfRangeException("page list", k, ids[k], poolPages);
            }
        }
        System.arraycopy(ids, 0, pageIds.toHeapArray(), 0, ids.length);
        plan.execute();
        return view.toHeapArray();
    }

    /** The device this gather runs on. */
    public Device device() {
        return plan.device();
    }

    public int pageElems() {
        return pageElems;
    }

    @Override
    public void close() {
        plan.close();
    }
}
