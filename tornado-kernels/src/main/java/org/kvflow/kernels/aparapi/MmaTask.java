package org.kvflow.kernels.aparapi;

/**
 * A twin that multiplies matrix tiles, with the kernel API's matrix-multiply-accumulate intrinsic
 * {@link #mmaTiles()}: its work-group holds an {@code M × K} tile {@link #tileA}, an
 * {@code N × K} tile {@link #tileB} (each row of B a column of the product, as key rows are) and
 * an {@code M × N} accumulator {@link #tileC} in local memory, and adds {@code A·Bᵀ} to C. The
 * Java body below is the reference (plain loops, every work-item a share of C), run as written by
 * the OpenCL device; the cuda translation replaces it with tensor-core code (warp-wide
 * {@code wmma} over tf32 fragments, A split into a high and a low tf32 part so the products keep
 * about fp32 precision; B must be exact in tf32, as dequantised fp8 codes are). A different
 * summation order changes the sum by rounding only.
 */
abstract class MmaTask extends AparapiTask {
    static final int TILE_M = MmaShape.M;
    static final int TILE_N = MmaShape.N;
    static final int TILE_K = MmaShape.K;

    @Local final float[] tileA = new float[TILE_M * TILE_K];
    @Local final float[] tileB = new float[TILE_N * TILE_K];
    @Local final float[] tileC = new float[TILE_M * TILE_N];

    /**
     * {@code tileC[m·N + n] += Σ_k tileA[m·K + k] · tileB[n·K + k]}, ascending {@code k}. Every
     * work-item of the group calls it, between barriers: the tiles are written before and C is
     * read after by other work-items.
     */
    final void mmaTiles() {
        for (int e = getLocalId(); e < TILE_M * TILE_N; e += LOCAL) {
            int m = e / TILE_N;
            int n = e - m * TILE_N;
            float acc = tileC[e];
            for (int k = 0; k < TILE_K; k++) {
                acc = acc + tileA[m * TILE_K + k] * tileB[n * TILE_K + k];
            }
            tileC[e] = acc;
        }
    }
}
