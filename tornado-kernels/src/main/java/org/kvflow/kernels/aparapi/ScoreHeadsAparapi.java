package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code IndexerKernels.scoreHeads}: a work-group takes one query's heads (up to
 * {@link #TILE_M}, the rest zero) against {@link #TILE_N} keys, multiplies them with the intrinsic
 * {@link #mmaTiles()} (tensor cores on cuda) over the keys' fp8 values (decoded through a table in
 * local memory), then sums each key's column over the heads: ReLU, the head's weight, and the
 * key's scale once.
 */
final class ScoreHeadsAparapi extends MmaTask {
    float[] queries = new float[1];
    float[] weights = new float[1];
    byte[] keys = new byte[1];
    float[] keyScales = new float[1];
    int[] shape = new int[4];
    float[] scores = new float[1];
    final float[] lut = fp8Table(256);
    @Local final float[] codes = new float[256];

    @Override
    void bind(List<Object> args) {
        queries = ((FloatArray) args.get(0)).toHeapArray();
        weights = ((FloatArray) args.get(1)).toHeapArray();
        keys = ((ByteArray) args.get(2)).toHeapArray();
        keyScales = ((FloatArray) args.get(3)).toHeapArray();
        shape = ((IntArray) args.get(4)).toHeapArray();
        scores = ((FloatArray) args.get(5)).toHeapArray();
    }

    @Override
    void putOwn() {
        put(lut);
    }

    @Override
    int globalSize() {
        long blocks = (long) shape[2] * ((shape[3] + TILE_N - 1) / TILE_N);
        return Math.toIntExact(blocks * LOCAL);
    }

    @Override
    public void run() {
        int heads = shape[0];
        int dim = shape[1];
        int nk = shape[3];
        int keyBlocks = (nk + TILE_N - 1) / TILE_N;
        int q = getGroupId() / keyBlocks;
        int j0 = (getGroupId() - q * keyBlocks) * TILE_N;
        int lid = getLocalId();
        // the epilogue reads C's columns across work-items: where work-groups share local memory one
        // after another (Aparapi's Java pool), none may clear it before the last one has read
        localBarrier();
        for (int e = lid; e < 256; e += LOCAL) {
            codes[e] = lut[e];
        }
        for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
            tileC[(e / TILE_N) * C_STRIDE + e - (e / TILE_N) * TILE_N] = 0.0f;
        }
        localBarrier();
        for (int d0 = 0; d0 < dim; d0 += TILE_K) {
            for (int e = lid; e < TILE_M * TILE_K; e += LOCAL) {
                int h = e / TILE_K;
                int d = d0 + e - h * TILE_K;
                float v = 0.0f;
                if (h < heads) {
                    if (d < dim) {
                        v = queries[(q * heads + h) * dim + d];
                    }
                }
                tileA[h * AB_STRIDE + e - h * TILE_K] = v;
            }
            for (int e = lid; e < TILE_N * TILE_K; e += LOCAL) {
                int nn = e / TILE_K;
                int d = d0 + e - nn * TILE_K;
                float v = 0.0f;
                if (j0 + nn < nk) {
                    if (d < dim) {
                        v = codes[keys[(j0 + nn) * dim + d] & 0xFF];
                    }
                }
                tileB[nn * AB_STRIDE + e - nn * TILE_K] = v;
            }
            localBarrier();
            mmaTiles();
            localBarrier();
        }
        if (lid < TILE_N) {
            if (j0 + lid < nk) {
                float sum = 0.0f;
                for (int h = 0; h < heads; h++) {
                    sum = sum + max(tileC[h * C_STRIDE + lid], 0.0f) * weights[q * heads + h];
                }
                scores[q * nk + j0 + lid] = sum * keyScales[j0 + lid];
            }
        }
    }
}
