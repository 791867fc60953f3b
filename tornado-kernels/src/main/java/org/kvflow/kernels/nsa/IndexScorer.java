package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * NSA indexer on a kernel device: scores index queries against fp8 index keys
 * ({@link IndexerKernels#scoreFp8}) and picks each query's top-k among the keys it sees
 * ({@link IndexerKernels#topKRows}), both on the device, in one graph. Any number of queries and
 * keys: the shape travels as data and the device buffers grow when a call needs more
 * ({@link GrowingBuffers}). Inputs are checked before any launch. Not thread-safe; close to free
 * the device buffers.
 */
public final class IndexScorer implements AutoCloseable {
    private final int dim;
    private final Device device;
    /** {@code {dim, nq, nk}} of the scores task. */
    private final IntArray shape = new IntArray(3);
    /** {@code {nq, nk, k}} of the top-k task; {@code k = 0} when only scores are asked for. */
    private final IntArray topShape = new IntArray(3);
    private final GrowingBuffers<Buffers> buffers;

    /** Largest Java array the buffers use. */
    private static final long LIMIT = Integer.MAX_VALUE - 8;

    /** The device arrays of one capacity and the plan over them. */
    private record Buffers(FloatArray q, ByteArray k, FloatArray scales, FloatArray scores, IntArray counts, IntArray selected,
                           ExecutionPlan plan) {}

    /** @throws IllegalArgumentException if {@code dim} is not positive */
    public IndexScorer(int dim, Device device) {
        if (dim <= 0) {
            throw new IllegalArgumentException("indexer dim=" + dim + " is not usable");
        }
        this.dim = dim;
        this.device = Objects.requireNonNull(device, "device");
        this.buffers = new GrowingBuffers<>(3, this::build, Buffers::plan,
                c -> c[0] * dim <= LIMIT && c[1] * dim <= LIMIT && c[0] * c[1] <= LIMIT && c[0] * c[2] <= LIMIT);
    }

    /**
     * @param queryRows {@code nq × dim} floats
     * @param keyCodes {@code nk × dim} fp8 e4m3 codes
     * @param keyScales {@code nk × ⌈dim/128⌉} scales
     * @return {@code nq × nk} scores, a row per query
     * @throws IllegalArgumentException naming the input whose length does not fit {@code dim}
     */
    public float[] scores(float[] queryRows, byte[] keyCodes, float[] keyScales) {
        Buffers b = loadWithKeys(queryRows, keyCodes, keyScales, null, 0);
        int size = queryRows.length / dim * (keyCodes.length / dim);
        if (size > 0) {
            b.plan().execute().transferToHost(b.scores());
        }
        return Arrays.copyOf(b.scores().toHeapArray(), size);
    }

    /** Each query's top {@code topK} key positions among all keys, ascending (ties to the smaller position). */
    public int[][] topK(float[] queryRows, byte[] keyCodes, float[] keyScales, int topK) {
        int[] counts = new int[rows("queries", queryRows.length)];
        Arrays.fill(counts, rows("keys", keyCodes.length));
        return topK(queryRows, keyCodes, keyScales, counts, topK);
    }

    /**
     * Each query's top {@code topK} key positions among the first {@code counts[q]} keys (a causal
     * query at position {@code t} sees {@code t + 1}), ascending, ties to the smaller position:
     * scores and selection both run on the device; only the positions come back.
     *
     * @return per query {@code min(topK, counts[q])} positions
     * @throws IllegalArgumentException naming the input that does not fit, a count outside
     *         {@code [0, nk]} (with its query), or {@code topK < 1}
     */
    public int[][] topK(float[] queryRows, byte[] keyCodes, float[] keyScales, int[] counts, int topK) {
        Buffers b = loadWithKeys(queryRows, keyCodes, keyScales, counts, topK);
        return select(b, counts, keyCodes.length / dim, topK);
    }

    /**
     * {@link #topK(float[], byte[], float[], int[], int)} over {@code keys} keys that {@code fill}
     * writes straight into the scorer's device arrays (a page memory reading them out of a view's
     * pages): the keys never pass through the host.
     *
     * @throws IllegalStateException if this device's arrays do not lie in device memory
     * @throws IllegalArgumentException as the other {@code topK}
     */
    public int[][] topK(float[] queryRows, int keys, KeyFill fill, int[] counts, int topK) {
        if (keys < 0) {
            throw new IllegalArgumentException("keys=" + keys + " is negative");
        }
        Buffers b = load(queryRows, keys, counts, topK);
        ExecutionPlan plan = b.plan();
        fill.fill(region(plan, b.k()), region(plan, b.scales()));
        plan.writtenOnDevice(b.k(), b.scales());
        return select(b, counts, keys, topK);
    }

    /** Fills key arrays that lie in device memory: {@code codes} ({@code keys × dim} bytes) and {@code scales} ({@code keys × ⌈dim/128⌉} floats). */
    @FunctionalInterface
    public interface KeyFill {
        void fill(DeviceRegion codes, DeviceRegion scales);
    }

    private DeviceRegion region(ExecutionPlan plan, Object array) {
        return plan.deviceRegionToFill(array).orElseThrow(() -> new IllegalStateException("the indexer's arrays on " + device + " are not in device memory"));
    }

    private int[][] select(Buffers b, int[] counts, int nk, int topK) {
        int nq = counts.length;
        if (nq > 0 && nk > 0) {
            b.plan().execute();
        }
        int[] selected = b.selected().toHeapArray();
        int[][] chosen = new int[nq][];
        for (int i = 0; i < nq; i++) {
            chosen[i] = Arrays.copyOfRange(selected, i * topK, i * topK + Math.min(topK, counts[i]));
        }
        return chosen;
    }

    /** {@link #load} with host keys: checks them too and copies them in. */
    private Buffers loadWithKeys(float[] queryRows, byte[] keyCodes, float[] keyScales, int @Nullable [] counts, int topK) {
        requireTopK(counts, topK);
        rows("queries", queryRows.length);
        int nk = rows("keys", keyCodes.length);
        if (keyScales.length != nk * KvLayout.tiles(dim)) {
            throw new IllegalArgumentException("key scales: " + keyScales.length + " values for " + nk + " keys of dim " + dim
                    + "; expected " + nk * KvLayout.tiles(dim));
        }
        Buffers b = load(queryRows, nk, counts, topK);
        System.arraycopy(keyCodes, 0, b.k().toHeapArray(), 0, keyCodes.length);
        System.arraycopy(keyScales, 0, b.scales().toHeapArray(), 0, keyScales.length);
        return b;
    }

    private static void requireTopK(int @Nullable [] counts, int topK) {
        if (counts != null && topK < 1) {
            throw new IllegalArgumentException("topK=" + topK + " must be >= 1");
        }
    }

    /** Checks the queries and counts and copies them into buffers that fit {@code nk} keys ({@code topK = 0}: scores only). */
    private Buffers load(float[] queryRows, int nk, int @Nullable [] counts, int topK) {
        requireTopK(counts, topK);
        int nq = rows("queries", queryRows.length);
        if ((long) nq * nk > LIMIT) {
            throw new IllegalArgumentException(nq + " queries × " + nk + " keys do not fit one score array");
        }
        if ((long) nq * topK > LIMIT) {
            throw new IllegalArgumentException(nq + " queries × top " + topK + " do not fit one selection array");
        }
        if (counts != null) {
            if (counts.length != nq) {
                throw new IllegalArgumentException(counts.length + " key counts for " + nq + " queries");
            }
            for (int i = 0; i < nq; i++) {
                if (counts[i] < 0 || counts[i] > nk) {
                    throw new IllegalArgumentException("query " + i + ": key count " + counts[i] + " outside [0, " + nk + "]");
                }
            }
        }
        Buffers b = buffers.atLeast(nq, nk, topK);
        System.arraycopy(queryRows, 0, b.q().toHeapArray(), 0, queryRows.length);
        shape.set(0, dim);
        shape.set(1, nq);
        shape.set(2, nk);
        topShape.set(0, nq);
        topShape.set(1, nk);
        topShape.set(2, topK);
        if (counts != null) {
            System.arraycopy(counts, 0, b.counts().toHeapArray(), 0, nq);
        }
        return b;
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

    /** Arrays for {@code capacity = {queries, keys, k}} and the plan over them. */
    private Buffers build(long[] capacity) {
        int cq = (int) capacity[0];
        int ck = (int) capacity[1];
        FloatArray q = new FloatArray(cq * dim);
        ByteArray k = new ByteArray(ck * dim);
        FloatArray scales = new FloatArray(ck * KvLayout.tiles(dim));
        FloatArray scores = new FloatArray(cq * ck);
        IntArray counts = new IntArray(cq);
        IntArray selected = new IntArray(cq * (int) capacity[2]);
        TaskGraph graph = new TaskGraph("indexer")
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, q, k, scales, shape, counts, topShape)
                .task("scores", IndexerKernels::scoreFp8, q, k, scales, shape, scores)
                .task("topK", IndexerKernels::topKRows, scores, counts, topShape, selected)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, selected)
                .transferToHost(DataTransferMode.UNDER_DEMAND, scores);
        return new Buffers(q, k, scales, scores, counts, selected, new ExecutionPlan(graph.snapshot()).withDevice(device));
    }

    @Override
    public void close() {
        buffers.close();
    }
}
