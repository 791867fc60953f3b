package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code IndexerKernels.scoreFp8}, tiled: a work-group scores a block of
 * {@link #TILE_M} queries against {@link #TILE_N} keys through the matrix-multiply intrinsic
 * (tensor cores on cuda), each key dequantised as the reference does (its code times its tile's
 * scale). Queries and keys are staged in local memory, so each is read from global memory once per
 * block instead of once per score. The shape is read from its array at every launch.
 */
final class IndexScoreAparapi extends Fp8KeyMma {
    int[] shape = new int[3];

    @Override
    void bind(List<Object> args) {
        queries = ((FloatArray) args.get(0)).toHeapArray();
        keys = ((ByteArray) args.get(1)).toHeapArray();
        keyScales = ((FloatArray) args.get(2)).toHeapArray();
        shape = ((IntArray) args.get(3)).toHeapArray();
        scores = ((FloatArray) args.get(4)).toHeapArray();
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
        startBlock(lid);
        multiplyKeys(q0, nq - q0, j0, nk, dim, 1, lid);
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
