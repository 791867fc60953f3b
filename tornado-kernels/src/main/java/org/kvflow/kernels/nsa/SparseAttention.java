package org.kvflow.kernels.nsa;

import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * MLA sparse attention on a kernel device ({@link AttentionKernels#attendBatch}): {@code queries}
 * queries of {@code width = C+R} floats, each over its own {@code selected} keys (the indexer's
 * top-k rows, gathered), producing {@code latent = C} floats per query. Shapes are fixed at
 * construction and inputs are checked before a launch. Not thread-safe; close to free the buffers.
 */
public final class SparseAttention implements AutoCloseable {
    private final int width;
    private final FloatArray q;
    private final FloatArray k;
    private final FloatArray out;
    private final ExecutionPlan plan;

    /** @throws IllegalArgumentException if a size is not positive or {@code latent > width} */
    public SparseAttention(int width, int latent, int queries, int selected, Device device) {
        if (width <= 0 || latent <= 0 || latent > width || queries < 0 || selected <= 0
                || (long) queries * selected * width > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("attention shape width=" + width + " latent=" + latent + " queries=" + queries
                    + " selected=" + selected + " is not usable (selected ≥ 1, latent ≤ width)");
        }
        this.width = width;
        this.q = new FloatArray(queries * width);
        this.k = new FloatArray(queries * selected * width);
        this.out = new FloatArray(queries * latent);
        FloatArray weights = new FloatArray(queries * selected);
        TaskGraph graph = new TaskGraph("attention")
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, q, k)
                .task("sparse", AttentionKernels::attendBatch, q, k, latent, weights, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out);
        this.plan = new ExecutionPlan(graph.snapshot()).withDevice(device);
    }

    /**
     * @param queryRows {@code queries × width} floats
     * @param keyRows {@code queries × selected × width} floats, each query's keys in ascending position
     * @return {@code queries × latent} outputs (reused by the next call)
     * @throws IllegalArgumentException naming the input whose length does not match
     */
    public float[] attend(float[] queryRows, float[] keyRows) {
        if (queryRows.length != q.getSize() || keyRows.length != k.getSize()) {
            throw new IllegalArgumentException("attention of width " + width + " takes " + q.getSize() + " query and " + k.getSize()
                    + " key values, got " + queryRows.length + " and " + keyRows.length);
        }
        System.arraycopy(queryRows, 0, q.toHeapArray(), 0, queryRows.length);
        System.arraycopy(keyRows, 0, k.toHeapArray(), 0, keyRows.length);
        plan.execute();
        return out.toHeapArray();
    }

    @Override
    public void close() {
        plan.close();
    }
}
