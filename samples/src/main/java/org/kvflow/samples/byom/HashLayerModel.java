package org.kvflow.samples.byom;

import java.util.SplittableRandom;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.nsa.KeyFloats;
import org.kvflow.model.KvConsumer;
import org.kvflow.model.KvModel;
import org.kvflow.model.KvProducer;
import org.kvflow.model.LayerView;

/**
 * A user-written model, as a team would plug its own layer into kvflow: one layer whose keys come
 * from a seeded embedding table and whose attention is dense and causal, both computed by kernels
 * of its own ({@link HashLayerKernels}) in task graphs on the pipeline's device. It states its
 * row layout (widths, layers, KV dtype); the pipeline stores, views, journals and sends those rows.
 */
public final class HashLayerModel implements KvModel {
    static final int LATENT = 32;
    static final int ROPE = 8;
    private static final int VOCAB = 1024;
    private final KvLayout layout;
    private final float[] table;

    /**
     * @param dtype how the rows are stored
     * @param seed  the embedding table's seed
     */
    public HashLayerModel(KvDtype dtype, long seed) {
        this.layout = new KvLayout(new ModelShape("hash-layer", ModelKind.TOY_MLA, 1, LATENT, ROPE, ROPE), dtype);
        SplittableRandom random = new SplittableRandom(seed);
        this.table = new float[VOCAB * LATENT];
        for (int i = 0; i < table.length; i++) {
            table[i] = (float) random.nextGaussian();
        }
    }

    @Override
    public String name() {
        return "hash-layer";
    }

    @Override
    public KvLayout layout() {
        return layout;
    }

    @Override
    public KvProducer producer(Device device) {
        return new KvProducer() {
            @Override
            public KeyFloats keys(int layer, int[] tokenIds, long[] positions) {
                int n = tokenIds.length;
                IntArray tokens = new IntArray(Math.max(1, 2 * n));
                for (int t = 0; t < n; t++) {
                    tokens.set(2 * t, tokenIds[t]);
                    tokens.set(2 * t + 1, Math.toIntExact(positions[t]));
                }
                FloatArray latent = new FloatArray(Math.max(1, n * LATENT));
                FloatArray rope = new FloatArray(Math.max(1, n * ROPE));
                FloatArray index = new FloatArray(Math.max(1, n * ROPE));
                TaskGraph graph = new TaskGraph("hashKeys").transferToDevice(DataTransferMode.EVERY_EXECUTION, tokens)
                        .task("keys", HashLayerKernels::keys, tokens, FloatArray.fromArray(table), IntArray.fromArray(new int[] {LATENT, ROPE, n}),
                                latent, rope, index)
                        .transferToHost(DataTransferMode.EVERY_EXECUTION, latent, rope, index);
                try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(device)) {
                    plan.execute();
                }
                return new KeyFloats(n, java.util.Arrays.copyOf(latent.toHeapArray(), n * LATENT),
                        java.util.Arrays.copyOf(rope.toHeapArray(), n * ROPE), java.util.Arrays.copyOf(index.toHeapArray(), n * ROPE));
            }

            @Override
            public void close() {
                // a plan per call: nothing held between chunks
            }
        };
    }

    @Override
    public KvConsumer consumer(Device device) {
        return new KvConsumer() {
            @Override
            public float[][] attend(int layer, LayerView view, int[] tokenIds, long[] positions) {
                int width = LATENT + ROPE;
                float[] keys = view.keyRows();
                int nq = positions.length;
                FloatArray q = new FloatArray(Math.max(1, nq * width));
                IntArray counts = new IntArray(Math.max(1, nq));
                for (int i = 0; i < nq; i++) {
                    int t = (int) positions[i];
                    System.arraycopy(keys, t * width, q.toHeapArray(), i * width, width); // the query is the token's own key row
                    counts.set(i, t + 1);
                }
                FloatArray out = new FloatArray(Math.max(1, nq * LATENT));
                TaskGraph graph = new TaskGraph("hashAttend").transferToDevice(DataTransferMode.EVERY_EXECUTION, q, counts)
                        .task("attend", HashLayerKernels::attend, q, FloatArray.fromArray(keys), counts, IntArray.fromArray(new int[] {width, LATENT}),
                                out)
                        .transferToHost(DataTransferMode.EVERY_EXECUTION, out);
                try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(device)) {
                    plan.execute();
                }
                float[][] rows = new float[nq][];
                for (int i = 0; i < nq; i++) {
                    rows[i] = java.util.Arrays.copyOfRange(out.toHeapArray(), i * LATENT, (i + 1) * LATENT);
                }
                return rows;
            }

            @Override
            public void close() {
                // a plan per call: nothing held between requests
            }
        };
    }
}
