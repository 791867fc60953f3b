package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code IndexerKernels.scoreFp8}: one work-item per (query, key) score, the shape read
 * from its array at every launch. fp8 codes are decoded through a 256-entry table built from the
 * Java codec, so dequantisation is exact; the dot product may be contracted to fused multiply-adds
 * by the OpenCL compiler.
 */
final class IndexScoreAparapi extends AparapiTask {
    float[] queries = new float[1];
    byte[] keys = new byte[1];
    float[] keyScales = new float[1];
    int[] shape = new int[3];
    float[] scores = new float[1];
    final float[] lut = fp8Table(256);

    @Override
    void bind(List<Object> args) {
        queries = ((FloatArray) args.get(0)).toHeapArray();
        keys = ((ByteArray) args.get(1)).toHeapArray();
        keyScales = ((FloatArray) args.get(2)).toHeapArray();
        shape = ((IntArray) args.get(3)).toHeapArray();
        scores = ((FloatArray) args.get(4)).toHeapArray();
    }

    @Override
    void putOwn() {
        put(lut);
    }

    @Override
    int globalSize() {
        return shape[1] * shape[2];
    }

    @Override
    public void run() {
        int i = getGlobalId();
        int dim = shape[0];
        int nk = shape[2];
        if (i < shape[1] * nk) {
            int blocks = (dim + KvLayout.QUANT_TILE - 1) / KvLayout.QUANT_TILE;
            int q = i / nk;
            int j = i - q * nk;
            float acc = 0.0f;
            for (int d = 0; d < dim; d++) {
                float k = lut[keys[j * dim + d] & 0xFF] * keyScales[j * blocks + d / KvLayout.QUANT_TILE];
                acc = acc + queries[q * dim + d] * k;
            }
            scores[i] = acc;
        }
    }
}
