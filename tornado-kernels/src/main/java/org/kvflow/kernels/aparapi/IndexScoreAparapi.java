package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code IndexerKernels.scoreFp8}, tiled: a work-group scores a block of
 * {@link #TILE_M} queries against {@link #TILE_N} keys, {@link #TILE_K} dimensions at a time,
 * through the matrix-multiply intrinsic {@link #mmaTiles()}: tensor cores on cuda. Queries and
 * the keys' fp8 codes, decoded exactly through a 256-entry table built from the Java codec, are
 * staged in local memory, so each is read from global memory once per block instead of once per
 * score. The key scale multiplies the sum over each 128-wide scale tile, where the reference
 * scales every key element: the two agree up to rounding. The shape is read from its array at
 * every launch.
 */
final class IndexScoreAparapi extends MmaTask {
    float[] queries = new float[1];
    byte[] keys = new byte[1];
    float[] keyScales = new float[1];
    int[] shape = new int[3];
    float[] scores = new float[1];
    final float[] lut = fp8Table(256);
    /** The block's scores, summed over the finished scale tiles. */
    @Local final float[] sums = new float[TILE_M * TILE_N];

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
        for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
            sums[e] = 0.0f;
            tileC[e] = 0.0f;
        }
        for (int d0 = 0; d0 < dim; d0 += TILE_K) {
            for (int e = lid; e < TILE_M * TILE_K; e += LOCAL) {
                int m = e / TILE_K;
                int d = d0 + e - m * TILE_K;
                float v = 0.0f;
                if (q0 + m < nq) {
                    if (d < dim) {
                        v = queries[(q0 + m) * dim + d];
                    }
                }
                tileA[e] = v;
            }
            for (int e = lid; e < TILE_N * TILE_K; e += LOCAL) {
                int n = e / TILE_K;
                int d = d0 + e - n * TILE_K;
                float v = 0.0f;
                if (j0 + n < nk) {
                    if (d < dim) {
                        v = lut[keys[(j0 + n) * dim + d] & 0xFF];
                    }
                }
                tileB[e] = v;
            }
            localBarrier();
            mmaTiles();
            localBarrier();
            int next = d0 + TILE_K;
            if (next >= dim || next % KvLayout.QUANT_TILE == 0) { // a scale tile ends: fold its sum in, scaled
                int tile = d0 / KvLayout.QUANT_TILE;
                for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
                    int n = e - (e / TILE_N) * TILE_N;
                    float scale = 0.0f;
                    if (j0 + n < nk) {
                        scale = keyScales[(j0 + n) * scaleTiles + tile];
                    }
                    sums[e] = sums[e] + tileC[e] * scale;
                    tileC[e] = 0.0f;
                }
                localBarrier();
            }
        }
        for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
            int m = e / TILE_N;
            int n = e - m * TILE_N;
            if (q0 + m < nq) {
                if (j0 + n < nk) {
                    scores[(q0 + m) * nk + j0 + n] = sums[e];
                }
            }
        }
    }
}
