package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code MatrixKernels.gemm}: a work-group computes a {@link #TILE_M} × {@link #TILE_N}
 * block of one batch's C, staging A and B {@link #TILE_K} columns at a time in local memory and
 * multiplying them with the intrinsic {@link #mmaTiles()} (tensor cores on cuda). B's tile is
 * read along whichever of its dimensions is contiguous, so a transposed B loads coalesced too;
 * gathered rows are looked up once per element, and a row of -1 reads as zeros.
 */
final class GemmAparapi extends MmaTask {
    float[] a = new float[1];
    float[] b = new float[1];
    int[] rows = new int[1];
    int[] shape = new int[16];
    float[] c = new float[1];

    @Override
    void bind(List<Object> args) {
        a = ((FloatArray) args.get(0)).toHeapArray();
        b = ((FloatArray) args.get(1)).toHeapArray();
        rows = ((IntArray) args.get(2)).toHeapArray();
        shape = ((IntArray) args.get(3)).toHeapArray();
        c = ((FloatArray) args.get(4)).toHeapArray();
    }

    @Override
    int globalSize() {
        long blocks = (long) shape[3] * ((shape[0] + TILE_M - 1) / TILE_M) * ((shape[1] + TILE_N - 1) / TILE_N);
        return Math.toIntExact(blocks * LOCAL);
    }

    @Override
    public void run() {
        int m = shape[0];
        int n = shape[1];
        int k = shape[2];
        int mBlocks = (m + TILE_M - 1) / TILE_M;
        int nBlocks = (n + TILE_N - 1) / TILE_N;
        int g = getGroupId();
        int z = g / (mBlocks * nBlocks);
        int rest = g - z * mBlocks * nBlocks;
        int m0 = (rest / nBlocks) * TILE_M;
        int n0 = (rest - (rest / nBlocks) * nBlocks) * TILE_N;
        int lid = getLocalId();
        int aBase = shape[7] + z * shape[10];
        int bBase = shape[8] + z * shape[11];
        for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
            tileC[(e / TILE_N) * C_STRIDE + e - (e / TILE_N) * TILE_N] = 0.0f;
        }
        for (int k0 = 0; k0 < k; k0 += TILE_K) {
            for (int e = lid; e < TILE_M * TILE_K; e += LOCAL) {
                int mm = e / TILE_K;
                int kk = e - mm * TILE_K;
                float v = 0.0f;
                if (m0 + mm < m) {
                    if (k0 + kk < k) {
                        v = a[aBase + (m0 + mm) * shape[4] + k0 + kk];
                    }
                }
                tileA[mm * AB_STRIDE + kk] = v;
            }
            for (int e = lid; e < TILE_N * TILE_K; e += LOCAL) {
                int nn = e / TILE_K;
                int kk = e - nn * TILE_K;
                if (shape[13] != 0) {
                    kk = e / TILE_N; // B is K × N: neighbouring work-items read neighbouring columns
                    nn = e - kk * TILE_N;
                }
                float v = 0.0f;
                if (n0 + nn < n) {
                    if (k0 + kk < k) {
                        int r = n0 + nn;
                        int col = k0 + kk;
                        if (shape[13] != 0) {
                            r = k0 + kk;
                            col = n0 + nn;
                        }
                        if (shape[14] != 0) {
                            r = rows[z * shape[15] + r];
                        }
                        if (r >= 0) {
                            v = b[bBase + r * shape[5] + col];
                        }
                    }
                }
                tileB[nn * AB_STRIDE + kk] = v;
            }
            localBarrier();
            mmaTiles();
            localBarrier();
        }
        int cBase = shape[9] + z * shape[12];
        for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
            int mm = e / TILE_N;
            int nn = e - mm * TILE_N;
            if (m0 + mm < m) {
                if (n0 + nn < n) {
                    c[cBase + (m0 + mm) * shape[6] + n0 + nn] = tileC[mm * C_STRIDE + nn];
                }
            }
        }
    }
}
