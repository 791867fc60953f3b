package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code IndexerKernels.scoreFp8}, tiled: a work-group scores a block of
 * {@link #TILE_M} queries against {@link #TILE_N} keys, {@link #TILE_K} dimensions at a time,
 * through the matrix-multiply intrinsic {@link #mmaTiles()}: tensor cores on cuda. Queries and the
 * keys, dequantised as the reference does (the fp8 code through a 256-entry table built from the
 * Java codec, times its tile's scale), are staged in local memory, so each is read from global
 * memory once per block instead of once per score. The shape is read from its array at every
 * launch.
 */
final class IndexScoreAparapi extends MmaTask {
    float[] queries = new float[1];
    byte[] keys = new byte[1];
    float[] keyScales = new float[1];
    int[] shape = new int[3];
    float[] scores = new float[1];
    final float[] lut = fp8Table(256);
    /** The decode table in local memory: a key's code is looked up without a second trip to global memory. */
    @Local final float[] codes = new float[256];

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
        long blocks = (long) ((shape[1] + TILE_M - 1) / TILE_M) * ((shape[2] + TILE_N - 1) / TILE_N);
        return Math.toIntExact(blocks * LOCAL);
    }

    @Override
    public void run() {
        int dim = shape[0];
        int nq = shape[1];
        int nk = shape[2];
        int keyBlocks = (nk + TILE_N - 1) / TILE_N;
        int q0 = (getGroupId() / keyBlocks) * TILE_M;
        int j0 = (getGroupId() - (getGroupId() / keyBlocks) * keyBlocks) * TILE_N;
        int lid = getLocalId();
        int scaleTiles = (dim + KvLayout.QUANT_TILE - 1) / KvLayout.QUANT_TILE;
        for (int e = lid; e < 256; e += LOCAL) {
            codes[e] = lut[e];
        }
        localBarrier();
        for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
            tileC[(e / TILE_N) * C_STRIDE + e - (e / TILE_N) * TILE_N] = 0.0f;
        }
        for (int d0 = 0; d0 < dim; d0 += TILE_K) {
            int tile = d0 / KvLayout.QUANT_TILE; // TILE_K divides the scale tile: one scale per key in this step
            for (int e = lid; e < TILE_M * TILE_K; e += LOCAL) {
                int m = e / TILE_K;
                int d = d0 + e - m * TILE_K;
                float v = 0.0f;
                if (q0 + m < nq) {
                    if (d < dim) {
                        v = queries[(q0 + m) * dim + d];
                    }
                }
                tileA[m * AB_STRIDE + e - m * TILE_K] = v;
            }
            for (int e = lid; e < TILE_N * TILE_K; e += LOCAL) {
                int n = e / TILE_K;
                int d = d0 + e - n * TILE_K;
                float v = 0.0f;
                if (j0 + n < nk) {
                    if (d < dim) {
                        v = codes[keys[(j0 + n) * dim + d] & 0xFF] * keyScales[(j0 + n) * scaleTiles + tile];
                    }
                }
                tileB[n * AB_STRIDE + e - n * TILE_K] = v;
            }
            localBarrier();
            mmaTiles();
            localBarrier();
        }
        for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
            int m = e / TILE_N;
            int n = e - m * TILE_N;
            if (q0 + m < nq) {
                if (j0 + n < nk) {
                    scores[(q0 + m) * nk + j0 + n] = tileC[m * C_STRIDE + n];
                }
            }
        }
    }
}
