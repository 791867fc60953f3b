package org.kvflow.kernels.gather;

import java.util.Objects;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.pages.PageOutOfRangeException;

/**
 * Full view ← owner pages on a kernel device: a pool of pages (in as many chunks as its size
 * needs) stays on the device (copied once), each {@link #gather(int[])} sends a page list of fixed
 * length {@code pages}, validates it before any launch, gathers in one launch and brings the view
 * back. Not thread-safe; close to free the device buffers.
 */
public final class PageGather implements AutoCloseable {
    private final long poolPages;
    private final IntArray pageIds;
    private final LongPages view;
    private final ExecutionPlan plan;

    /** @throws IllegalArgumentException if {@code pages} is negative */
    public PageGather(LongPages pool, int pages, Device device) {
        Objects.requireNonNull(pool, "pool");
        if (pages < 0) {
            throw new IllegalArgumentException("a view of " + pages + " pages");
        }
        this.poolPages = pool.pageCount();
        this.pageIds = new IntArray(pages);
        this.view = LongPages.allocate(pages, pool.pageElems());
        TaskGraph graph = new TaskGraph("fullView")
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, pool)
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, pageIds)
                .task("gather", GatherKernels::gatherPages, pool, pageIds, view)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, view);
        this.plan = new ExecutionPlan(graph.snapshot()).withDevice(device);
    }

    /**
     * Gathers the listed pages into the view (page k of the view is pool page {@code ids[k]}).
     *
     * @return the view, reused by the next call
     * @throws PageOutOfRangeException naming the first id outside the pool, before any launch
     * @throws IllegalArgumentException if {@code ids} is not {@code pages} long
     */
    public LongPages gather(int[] ids) {
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
        return view;
    }

    /** The device this gather runs on. */
    public Device device() {
        return plan.device();
    }

    @Override
    public void close() {
        plan.close();
    }
}
