package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Consumer;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * MLA sparse attention on a kernel device ({@link AttentionKernels#attendBatch}): queries of
 * {@code width = C+R} floats, each over its own {@code selected} keys (the indexer's top-k rows,
 * gathered), producing {@code latent = C} floats per query. Any number of queries and selected
 * keys: the shape travels as data and the device buffers grow when a call needs more
 * ({@link GrowingBuffers}).
 * Inputs are checked before any launch. Not thread-safe; close to free the buffers.
 */
public final class SparseAttention implements AutoCloseable {
    private final int width;
    private final int latent;
    private final Device device;
    private final IntArray shape = new IntArray(4);
    private final GrowingBuffers<Buffers> buffers;

    /** Largest Java array the buffers use. */
    private static final long LIMIT = Integer.MAX_VALUE - 8;

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
        this.buffers = new GrowingBuffers<>(2, this::build, Buffers::plan, c -> c[0] * width <= LIMIT && c[1] * width <= LIMIT);
    }

    /**
     * @param queryRows {@code nq × width} floats
     * @param keyRows {@code nq × selected × width} floats, each query's keys in ascending position
     * @param selected keys per query (≥ 1)
     * @return {@code nq × latent} outputs
     * @throws IllegalArgumentException naming the input whose length does not match
     */
    public float[] attend(float[] queryRows, float[] keyRows, int selected) {
        int nq = check(queryRows, selected);
        if (keyRows.length != (long) queryRows.length * selected) {
            throw new IllegalArgumentException("attention of width " + width + " over " + selected + " keys: " + queryRows.length
                    + " query values must be whole rows and the keys " + (long) queryRows.length * selected + " values, got " + keyRows.length);
        }
        Buffers b = load(queryRows, nq, selected);
        System.arraycopy(keyRows, 0, b.k().toHeapArray(), 0, keyRows.length);
        return run(b, nq);
    }

    /**
     * {@link #attend(float[], float[], int)} with the key rows written by {@code fill} straight into
     * the kernel's device array ({@code nq × selected × width} floats; a page memory reading them
     * out of a view's pages): the keys never pass through the host.
     *
     * @throws IllegalStateException if this device's arrays do not lie in device memory
     */
    public float[] attend(float[] queryRows, int selected, Consumer<DeviceRegion> fill) {
        int nq = check(queryRows, selected);
        Buffers b = load(queryRows, nq, selected);
        ExecutionPlan plan = b.plan();
        fill.accept(plan.deviceRegionToFill(b.k()).orElseThrow(() -> new IllegalStateException(
                "the attention's arrays on " + device + " are not in device memory")));
        plan.writtenOnDevice(b.k());
        return run(b, nq);
    }

    /** @return the queries' count, after checking the shape */
    private int check(float[] queryRows, int selected) {
        if (selected <= 0) {
            throw new IllegalArgumentException("selected=" + selected + ": every query attends over at least one key");
        }
        if (queryRows.length % width != 0) {
            throw new IllegalArgumentException("attention of width " + width + " over " + selected + " keys: " + queryRows.length
                    + " query values must be whole rows and the keys " + (long) queryRows.length * selected + " values");
        }
        if ((long) queryRows.length * selected > LIMIT) {
            throw new IllegalArgumentException((long) queryRows.length / width * selected + " selected key rows of width " + width
                    + " do not fit one array");
        }
        return queryRows.length / width;
    }

    private Buffers load(float[] queryRows, int nq, int selected) {
        Buffers b = buffers.atLeast(nq, (long) nq * selected);
        System.arraycopy(queryRows, 0, b.q().toHeapArray(), 0, queryRows.length);
        shape.set(0, width);
        shape.set(1, latent);
        shape.set(2, nq);
        shape.set(3, selected);
        return b;
    }

    private float[] run(Buffers b, int nq) {
        if (nq > 0) {
            b.plan().execute();
        }
        return Arrays.copyOf(b.out().toHeapArray(), nq * latent);
    }

    /** Arrays for {@code capacity = {queries, key rows}} and the plan over them. */
    private Buffers build(long[] capacity) {
        int cq = (int) capacity[0];
        int ck = (int) capacity[1];
        FloatArray q = new FloatArray(cq * width);
        FloatArray k = new FloatArray(ck * width);
        FloatArray weights = new FloatArray(Math.max(cq, ck));
        FloatArray out = new FloatArray(cq * latent);
        TaskGraph graph = new TaskGraph("attention")
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, q, k, shape)
                .task("sparse", AttentionKernels::attendBatch, q, k, shape, weights, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out);
        return new Buffers(q, k, out, new ExecutionPlan(graph.snapshot()).withDevice(device));
    }

    @Override
    public void close() {
        buffers.close();
    }
}
