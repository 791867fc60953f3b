package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.Objects;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * NSA indexer on a kernel device: scores index queries against fp8 index keys
 * ({@link IndexerKernels#scoreFp8}) and picks each query's top-k ({@link IndexerKernels#topK},
 * on the host). Any number of queries and keys: the shape travels as data and the device buffers
 * grow when a call needs more ({@link GrowingBuffers}).
 * Inputs are checked before any launch. Not thread-safe; close to free the device buffers.
 */
public final class IndexScorer implements AutoCloseable {
    private final int dim;
    private final Device device;
    private final IntArray shape = new IntArray(3);
    private final GrowingBuffers<Buffers> buffers;

    /** Largest Java array the buffers use. */
    private static final long LIMIT = Integer.MAX_VALUE - 8;

    /** The device arrays of one capacity and the plan over them. */
    private record Buffers(FloatArray q, ByteArray k, FloatArray scales, FloatArray scores, ExecutionPlan plan) {}

    /** @throws IllegalArgumentException if {@code dim} is not positive */
    public IndexScorer(int dim, Device device) {
        if (dim <= 0) {
            throw new IllegalArgumentException("indexer dim=" + dim + " is not usable");
        }
        this.dim = dim;
        this.device = Objects.requireNonNull(device, "device");
        this.buffers = new GrowingBuffers<>(2, this::build, Buffers::plan,
                c -> c[0] * dim <= LIMIT && c[1] * dim <= LIMIT && c[0] * c[1] <= LIMIT);
    }

    /**
     * @param queryRows {@code nq × dim} floats
     * @param keyCodes {@code nk × dim} fp8 e4m3 codes
     * @param keyScales {@code nk × ⌈dim/128⌉} scales
     * @return {@code nq × nk} scores, a row per query
     * @throws IllegalArgumentException naming the input whose length does not fit {@code dim}
     */
    public float[] scores(float[] queryRows, byte[] keyCodes, float[] keyScales) {
        int nq = rows("queries", queryRows.length);
        int nk = rows("keys", keyCodes.length);
        if (keyScales.length != nk * KvLayout.tiles(dim)) {
            throw new IllegalArgumentException("key scales: " + keyScales.length + " values for " + nk + " keys of dim " + dim
                    + "; expected " + nk * KvLayout.tiles(dim));
        }
        if ((long) nq * nk > LIMIT) {
            throw new IllegalArgumentException(nq + " queries × " + nk + " keys do not fit one score array");
        }
        Buffers b = buffers.atLeast(nq, nk);
        System.arraycopy(queryRows, 0, b.q().toHeapArray(), 0, queryRows.length);
        System.arraycopy(keyCodes, 0, b.k().toHeapArray(), 0, keyCodes.length);
        System.arraycopy(keyScales, 0, b.scales().toHeapArray(), 0, keyScales.length);
        shape.set(0, dim);
        shape.set(1, nq);
        shape.set(2, nk);
        if (nq > 0 && nk > 0) {
            b.plan().execute();
        }
        return Arrays.copyOf(b.scores().toHeapArray(), nq * nk);
    }

    /** Each query's top {@code topK} key positions, ascending (ties to the smaller position). */
    public int[][] topK(float[] queryRows, byte[] keyCodes, float[] keyScales, int topK) {
        float[] all = scores(queryRows, keyCodes, keyScales);
        int nq = queryRows.length / dim;
        int nk = keyCodes.length / dim;
        int[][] chosen = new int[nq][];
        for (int i = 0; i < nq; i++) {
            chosen[i] = IndexerKernels.topK(Arrays.copyOfRange(all, i * nk, (i + 1) * nk), nk, topK);
        }
        return chosen;
    }

    public Device device() {
        return device;
    }

    private int rows(String what, int length) {
        if (length % dim != 0) {
            throw new IllegalArgumentException(what + ": " + length + " values is not a whole number of rows of dim " + dim);
        }
        return length / dim;
    }

    /** Arrays for {@code capacity = {queries, keys}} and the plan over them. */
    private Buffers build(long[] capacity) {
        int cq = (int) capacity[0];
        int ck = (int) capacity[1];
        FloatArray q = new FloatArray(cq * dim);
        ByteArray k = new ByteArray(ck * dim);
        FloatArray scales = new FloatArray(ck * KvLayout.tiles(dim));
        FloatArray scores = new FloatArray(cq * ck);
        TaskGraph graph = new TaskGraph("indexer")
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, q, k, scales, shape)
                .task("scores", IndexerKernels::scoreFp8, q, k, scales, shape, scores)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, scores);
        return new Buffers(q, k, scales, scores, new ExecutionPlan(graph.snapshot()).withDevice(device));
    }

    @Override
    public void close() {
        buffers.close();
    }
}
