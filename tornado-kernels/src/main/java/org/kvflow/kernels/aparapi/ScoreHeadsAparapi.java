package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code IndexerKernels.scoreHeads}: a work-group takes one query's heads (up to
 * {@link #TILE_M}, the rest zero) against {@link #TILE_N} keys, multiplies them with the intrinsic
 * (tensor cores on cuda) over the keys' fp8 codes, then sums each key's column over the heads:
 * ReLU, the head's weight, and the key's scale once.
 */
final class ScoreHeadsAparapi extends Fp8KeyMma {
    float[] weights = new float[1];
    int[] shape = new int[4];

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
        startBlock(lid);
        multiplyKeys(q * heads, heads, j0, nk, dim, 0, lid);
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
