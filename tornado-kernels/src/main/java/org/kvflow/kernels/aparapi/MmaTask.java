package org.kvflow.kernels.aparapi;

/**
 * A twin that multiplies matrix tiles, with the kernel API's matrix-multiply-accumulate intrinsic
 * {@link #mmaTiles()}: its work-group holds an {@code M × K} tile {@link #tileA}, an
 * {@code N × K} tile {@link #tileB} (each row of B a column of the product, as key rows are) and
 * an {@code M × N} accumulator {@link #tileC} in local memory, rows {@link MmaShape} strides apart,
 * and adds {@code A·Bᵀ} to C. The Java body below is the reference (plain loops, every work-item a
 * share of C), run as written by the OpenCL device; the cuda translation replaces it with
 * tensor-core code (warp-wide {@code wmma} over tf32 fragments, A and B each split into a high and
 * a low tf32 part and three products summed, so the result keeps about fp32 precision). A
 * different summation order changes the sum by rounding only.
 */
abstract class MmaTask extends AparapiTask {
    static final int TILE_M = MmaShape.M;
    static final int TILE_N = MmaShape.N;
    static final int TILE_K = MmaShape.K;

    static final int AB_STRIDE = MmaShape.AB_STRIDE;
    static final int C_STRIDE = MmaShape.C_STRIDE;

    @Local final float[] tileA = new float[TILE_M * AB_STRIDE];
    @Local final float[] tileB = new float[TILE_N * AB_STRIDE];
    @Local final float[] tileC = new float[TILE_M * C_STRIDE];

    /**
     * {@code tileC[m·C_STRIDE + n] += Σ_k tileA[m·AB_STRIDE + k] · tileB[n·AB_STRIDE + k]}, ascending
     * {@code k < K}. Every work-item of the group calls it, between barriers: the tiles are written
     * before and C is read after by other work-items.
     */
    final void mmaTiles() {
        for (int e = getLocalId(); e < TILE_M * TILE_N; e += LOCAL) {
            int m = e / TILE_N;
            int n = e - m * TILE_N;
            float acc = tileC[m * C_STRIDE + n];
            for (int k = 0; k < TILE_K; k++) {
                acc = acc + tileA[m * AB_STRIDE + k] * tileB[n * AB_STRIDE + k];
            }
            tileC[m * C_STRIDE + n] = acc;
        }
    }
}
