package org.kvflow.kernels.nsa;

import java.util.Objects;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.ExecutionResult;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * The NSA attention step as one task graph on one device: indexer scores of the queries against
 * the fp8 index keys ({@link IndexerKernels#scoreFp8}), each query's exact top-k over all keys
 * ({@link IndexerKernels#topKRows}) and MLA sparse attention over the selected key rows, read in
 * place ({@link AttentionKernels#attendSelected}: no gathered copy). Scores and selections are
 * handed from task to task on the device. The keys are copied once and stay there; each {@link #run} sends
 * the queries and brings back the outputs. Fixed shape; not thread-safe; close to free the device
 * buffers.
 */
public final class AttentionChain implements AutoCloseable {
    /** Sizes: index dim, key width {@code C+R}, latent {@code C}, queries, keys, top-k ({@code ≤ keys}). */
    public record Shape(int indexDim, int width, int latent, int queries, int keys, int topK) {
        /** @throws IllegalArgumentException if a size is not positive, {@code latent > width} or {@code topK > keys} */
        public Shape {
            if (indexDim <= 0 || width <= 0 || latent <= 0 || queries <= 0 || keys <= 0 || topK <= 0 || latent > width || topK > keys) {
                throw new IllegalArgumentException("attention chain indexDim=" + indexDim + " width=" + width + " latent=" + latent + " queries="
                        + queries + " keys=" + keys + " topK=" + topK + ": sizes must be positive, latent ≤ width and topK ≤ keys");
            }
        }
    }

    private final Shape shape;
    private final FloatArray indexQueries;
    private final FloatArray queries;
    private final FloatArray out;
    private final IntArray selected;
    private final ByteArray codes;
    private final FloatArray scales;
    private final FloatArray rows;
    private final ExecutionPlan plan;
    private @Nullable ExecutionResult last;

    /**
     * @param indexKeyCodes {@code keys × indexDim} fp8 e4m3 codes
     * @param indexKeyScales {@code keys × ⌈indexDim/128⌉} scales
     * @param keyRows {@code keys × width} floats, the MLA keys (latent then rope)
     * @throws IllegalArgumentException naming the input whose length does not fit {@code shape}
     */
    public AttentionChain(Shape shape, byte[] indexKeyCodes, float[] indexKeyScales, float[] keyRows, Device device) {
        requireLength("index key codes", indexKeyCodes.length, (long) shape.keys() * shape.indexDim());
        requireLength("index key scales", indexKeyScales.length, (long) shape.keys() * KvLayout.tiles(shape.indexDim()));
        requireLength("key rows", keyRows.length, (long) shape.keys() * shape.width());
        this.shape = Objects.requireNonNull(shape, "shape");
        int nq = shape.queries();
        int k = shape.topK();
        indexQueries = new FloatArray(Math.multiplyExact(nq, shape.indexDim()));
        queries = new FloatArray(Math.multiplyExact(nq, shape.width()));
        out = new FloatArray(Math.multiplyExact(nq, shape.latent()));
        selected = new IntArray(Math.multiplyExact(nq, k));
        codes = ByteArray.fromArray(indexKeyCodes);
        scales = FloatArray.fromArray(indexKeyScales);
        rows = FloatArray.fromArray(keyRows);
        IntArray counts = new IntArray(nq);
        for (int q = 0; q < nq; q++) {
            counts.set(q, shape.keys());
        }
        IntArray scoreShape = IntArray.fromArray(new int[] {shape.indexDim(), nq, shape.keys()});
        IntArray topShape = IntArray.fromArray(new int[] {nq, shape.keys(), k});
        IntArray attendShape = IntArray.fromArray(new int[] {shape.width(), shape.latent(), nq, k});
        FloatArray scores = new FloatArray(Math.multiplyExact(nq, shape.keys()));
        FloatArray weights = new FloatArray(Math.multiplyExact(nq, k));
        TaskGraph graph = new TaskGraph("attention")
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, codes, scales, rows, counts, scoreShape, topShape, attendShape)
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, indexQueries, queries)
                .task("scores", IndexerKernels::scoreFp8, indexQueries, codes, scales, scoreShape, scores)
                .task("topK", IndexerKernels::topKRows, scores, counts, topShape, selected)
                .task("attend", AttentionKernels::attendSelected, queries, rows, selected, attendShape, weights, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out)
                .transferToHost(DataTransferMode.UNDER_DEMAND, selected);
        this.plan = new ExecutionPlan(graph.snapshot()).withDevice(device);
    }

    /**
     * A chain whose keys a page memory of the device writes in place ({@link #loadKeys}) before
     * the first run: no key crosses the host.
     */
    public AttentionChain(Shape shape, Device device) {
        this(shape, new byte[Math.multiplyExact(shape.keys(), shape.indexDim())],
                new float[Math.multiplyExact(shape.keys(), KvLayout.tiles(shape.indexDim()))],
                new float[Math.multiplyExact(shape.keys(), shape.width())], device);
    }

    private static void requireLength(String what, int actual, long expected) {
        if (actual != expected) {
            throw new IllegalArgumentException(what + ": " + actual + " values; the shape needs " + expected);
        }
    }

    /**
     * Runs the step for {@code indexQueries} ({@code queries × indexDim}) and {@code queries}
     * ({@code queries × width}); the outputs are then in {@link #out()}.
     *
     * @return the execution, with its per-task times and host traffic
     * @throws IllegalArgumentException naming the input whose length does not fit the shape
     */
    public ExecutionResult run(float[] indexQueries, float[] queries) {
        requireLength("index queries", indexQueries.length, this.indexQueries.getSize());
        requireLength("queries", queries.length, this.queries.getSize());
        System.arraycopy(indexQueries, 0, this.indexQueries.toHeapArray(), 0, indexQueries.length);
        System.arraycopy(queries, 0, this.queries.toHeapArray(), 0, queries.length);
        last = plan.execute();
        return last;
    }

    /**
     * Replaces the keys in place on the device: {@code index} writes the index keys' codes and
     * scales, {@code rows} the {@code keys × width} float key rows (a page memory reading them out
     * of a view's pages).
     *
     * @throws IllegalStateException if the device's arrays do not lie in device memory
     */
    public void loadKeys(IndexScorer.KeyFill index, Consumer<DeviceRegion> rows) {
        index.fill(region(codes), region(scales));
        rows.accept(region(this.rows));
        plan.writtenOnDevice(codes, scales, this.rows);
    }

    private DeviceRegion region(Object array) {
        return plan.deviceRegionToFill(array).orElseThrow(() -> new IllegalStateException("the attention chain's arrays on "
                + plan.device() + " are not in device memory"));
    }

    /** {@code queries × latent} outputs of the last run (the array itself, rewritten by the next run). */
    public float[] out() {
        return out.toHeapArray();
    }

    /**
     * Each query's {@code topK} key positions of the last run, ascending, copied from the device now.
     *
     * @throws IllegalStateException before the first run
     */
    public int[] selected() {
        if (last == null) {
            throw new IllegalStateException("no run yet");
        }
        last.transferToHost(selected);
        return selected.toHeapArray().clone();
    }

    public Shape shape() {
        return shape;
    }

    @Override
    public void close() {
        plan.close();
    }
}
