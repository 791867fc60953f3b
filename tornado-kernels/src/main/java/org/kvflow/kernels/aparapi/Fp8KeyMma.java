package org.kvflow.kernels.aparapi;

import org.kvflow.core.model.KvLayout;

/**
 * A twin that multiplies query rows by fp8 index keys through the intrinsic {@link #mmaTiles()}:
 * a work-group's block of C is {@link #TILE_M} query rows against {@link #TILE_N} keys, and its
 * keys' codes are decoded through a 256-entry table (built from the Java codec) that it first
 * copies into local memory, so a code is looked up without a second trip to global memory. The
 * subclasses differ in which rows a block takes and in what they write of C.
 */
abstract class Fp8KeyMma extends MmaTask {
    float[] queries = new float[1];
    byte[] keys = new byte[1];
    float[] keyScales = new float[1];
    float[] scores = new float[1];
    final float[] lut = fp8Table(256);
    @Local final float[] codes = new float[256];

    @Override
    final void putOwn() {
        put(lut);
    }

    /**
     * Copies the decode table into local memory and clears C. It begins with a barrier: the
     * epilogue reads C across work-items, and where work-groups share local memory one after
     * another (Aparapi's Java pool) none may clear it before the last one has read.
     */
    final void startBlock(int lid) {
        localBarrier();
        for (int e = lid; e < 256; e += LOCAL) {
            codes[e] = lut[e];
        }
        for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
            tileC[(e / TILE_N) * C_STRIDE + e - (e / TILE_N) * TILE_N] = 0.0f;
        }
        localBarrier();
    }

    /**
     * Adds to C the products of query rows {@code firstRow ..} ({@code rows} of them; C's rows past
     * that stay zero) with keys {@code j0 ..} (none at or past {@code nk}), over all {@code dim}
     * dimensions, {@link #TILE_K} at a time. Where {@code scaled} is 1, each key's value is its code
     * times its quantisation tile's scale ({@code keyScales[key · tiles + tile]}), as the reference
     * dequantises; else the code alone.
     */
    final void multiplyKeys(int firstRow, int rows, int j0, int nk, int dim, int scaled, int lid) {
        int scaleTiles = (dim + KvLayout.QUANT_TILE - 1) / KvLayout.QUANT_TILE;
        for (int d0 = 0; d0 < dim; d0 += TILE_K) {
            int tile = d0 / KvLayout.QUANT_TILE; // TILE_K divides the scale tile: one scale per key in this step
            for (int e = lid; e < TILE_M * TILE_K; e += LOCAL) {
                int m = e / TILE_K;
                int d = d0 + e - m * TILE_K;
                float v = 0.0f;
                if (m < rows) {
                    if (d < dim) {
                        v = queries[(firstRow + m) * dim + d];
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
                        v = codes[keys[(j0 + n) * dim + d] & 0xFF];
                        if (scaled == 1) {
                            v = v * keyScales[(j0 + n) * scaleTiles + tile];
                        }
                    }
                }
                tileB[n * AB_STRIDE + e - n * TILE_K] = v;
            }
            localBarrier();
            mmaTiles();
            localBarrier();
        }
    }
}
