package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * MLA sparse attention on a kernel device ({@link AttentionKernels#attendBatch}): queries of
 * {@code width = C+R} floats, each over its own {@code selected} keys (the indexer's top-k rows,
 * gathered), producing {@code latent = C} floats per query. Any number of queries and selected
 * keys: the shape travels as data and the device buffers grow (doubling) when a call needs more.
 * Inputs are checked before any launch. Not thread-safe; close to free the buffers.
 */
public final class SparseAttention implements AutoCloseable {
    private final int width;
    private final int latent;
    private final Device device;
    private final IntArray shape = new IntArray(4);
    private int queryCapacity;
    private long keyCapacity;
    private @Nullable Buffers buffers;

    /** The device arrays of one capacity and the plan over them. */
    private record Buffers(FloatArray q, FloatArray k, FloatArray out, ExecutionPlan plan) {}

    /** @throws IllegalArgumentException if a size is not positive or {@code latent > width} */
    public SparseAttention(int width, int latent, Device device) {
        if (width <= 0 || latent <= 0 || latent > width) {
            throw new IllegalArgumentException("attention shape width=" + width + " latent=" + latent + " is not usable (latent ≤ width)");
        }
        this.width = width;
        this.latent = latent;
        this.device = Objects.requireNonNull(device, "device");
    }

    /**
     * @param queryRows {@code nq × width} floats
     * @param keyRows {@code nq × selected × width} floats, each query's keys in ascending position
     * @param selected keys per query (≥ 1)
     * @return {@code nq × latent} outputs
     * @throws IllegalArgumentException naming the input whose length does not match
     */
    public float[] attend(float[] queryRows, float[] keyRows, int selected) {
        if (selected <= 0) {
            throw new IllegalArgumentException("selected=" + selected + ": every query attends over at least one key");
        }
        if (queryRows.length % width != 0 || keyRows.length != (long) queryRows.length * selected) {
            throw new IllegalArgumentException("attention of width " + width + " over " + selected + " keys: " + queryRows.length
                    + " query values must be whole rows and the keys " + (long) queryRows.length * selected + " values, got " + keyRows.length);
        }
        int nq = queryRows.length / width;
        Buffers b = ensure(nq, (long) nq * selected);
        System.arraycopy(queryRows, 0, b.q().toHeapArray(), 0, queryRows.length);
        System.arraycopy(keyRows, 0, b.k().toHeapArray(), 0, keyRows.length);
        shape.set(0, width);
        shape.set(1, latent);
        shape.set(2, nq);
        shape.set(3, selected);
        if (nq > 0) {
            b.plan().execute();
        }
        return Arrays.copyOf(b.out().toHeapArray(), nq * latent);
    }

    private Buffers ensure(int nq, long keys) {
        if (buffers != null && nq <= queryCapacity && keys <= keyCapacity) {
            return buffers;
        }
        close();
        queryCapacity = Math.max(nq, 2 * queryCapacity);
        keyCapacity = Math.max(keys, 2 * keyCapacity);
        if (keyCapacity * width > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException(keys + " selected key rows of width " + width + " do not fit one array");
        }
        int cq = Math.max(1, queryCapacity);
        FloatArray q = new FloatArray(cq * width);
        FloatArray k = new FloatArray((int) Math.max(1, keyCapacity) * width);
        FloatArray weights = new FloatArray((int) Math.max(cq, keyCapacity));
        FloatArray out = new FloatArray(cq * latent);
        TaskGraph graph = new TaskGraph("attention")
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, q, k, shape)
                .task("sparse", AttentionKernels::attendBatch, q, k, shape, weights, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out);
        buffers = new Buffers(q, k, out, new ExecutionPlan(graph.snapshot()).withDevice(device));
        return buffers;
    }

    @Override
    public void close() {
        if (buffers != null) {
            buffers.plan().close();
            buffers = null;
        }
    }
}
