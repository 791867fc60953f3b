package org.kvflow.kernels.nsa;

import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.TaskGraph;

/**
 * NSA indexer on a kernel device: scores {@code queries} index queries against {@code keys} fp8
 * index keys ({@link IndexerKernels#scoreFp8}) and picks each query's top-k
 * ({@link IndexerKernels#topK}, on the host). Shapes are fixed at construction and every input is
 * checked before a launch. Not thread-safe; close to free the device buffers.
 */
public final class IndexScorer implements AutoCloseable {
    private final int dim;
    private final int queries;
    private final int keys;
    private final FloatArray q;
    private final ByteArray k;
    private final FloatArray scales;
    private final FloatArray scores;
    private final ExecutionPlan plan;

    public IndexScorer(int dim, int queries, int keys, Device device) {
        if (dim <= 0 || queries < 0 || keys < 0 || (long) queries * keys > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("indexer shape dim=" + dim + " queries=" + queries + " keys=" + keys + " is not usable");
        }
        this.dim = dim;
        this.queries = queries;
        this.keys = keys;
        this.q = new FloatArray(queries * dim);
        this.k = new ByteArray(keys * dim);
        this.scales = new FloatArray(keys * KvLayout.tiles(dim));
        this.scores = new FloatArray(queries * keys);
        TaskGraph graph = new TaskGraph("indexer")
                .transferToDevice(DataTransferMode.EVERY_EXECUTION, q, k, scales)
                .task("scores", IndexerKernels::scoreFp8, q, k, scales, dim, scores)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, scores);
        this.plan = new ExecutionPlan(graph.snapshot()).withDevice(device);
    }

    /**
     * @param queryRows {@code queries × dim} floats
     * @param keyCodes {@code keys × dim} fp8 e4m3 codes
     * @param keyScales {@code keys × ⌈dim/128⌉} scales
     * @return {@code queries × keys} scores, row per query (reused by the next call)
     * @throws IllegalArgumentException naming the input whose length does not match the shape
     */
    public float[] scores(float[] queryRows, byte[] keyCodes, float[] keyScales) {
        expect("queries", queryRows.length, q.getSize());
        expect("keys", keyCodes.length, k.getSize());
        expect("key scales", keyScales.length, scales.getSize());
        System.arraycopy(queryRows, 0, q.toHeapArray(), 0, queryRows.length);
        System.arraycopy(keyCodes, 0, k.toHeapArray(), 0, keyCodes.length);
        System.arraycopy(keyScales, 0, scales.toHeapArray(), 0, keyScales.length);
        plan.execute();
        return scores.toHeapArray();
    }

    /** Each query's top {@code topK} key positions, ascending (ties to the smaller position). */
    public int[][] topK(float[] queryRows, byte[] keyCodes, float[] keyScales, int topK) {
        float[] all = scores(queryRows, keyCodes, keyScales);
        int[][] chosen = new int[queries][];
        float[] row = new float[keys];
        for (int i = 0; i < queries; i++) {
            System.arraycopy(all, i * keys, row, 0, keys);
            chosen[i] = IndexerKernels.topK(row, keys, topK);
        }
        return chosen;
    }

    public Device device() {
        return plan.device();
    }

    private void expect(String what, int got, int want) {
        if (got != want) {
            throw new IllegalArgumentException(what + ": " + got + " values, the indexer of dim " + dim + ", " + queries + " queries, "
                    + keys + " keys takes " + want);
        }
    }

    @Override
    public void close() {
        plan.close();
    }
}
