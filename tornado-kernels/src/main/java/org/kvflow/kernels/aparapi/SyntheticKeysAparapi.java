package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;

/**
 * Twin of {@code SyntheticKernels.keys}: one work-item per (token, unit), a unit being a latent
 * column, a rope pair or an index column. Each work-item replays the token's input generator
 * ({@code SplittableRandom}: seed += golden gamma, mix64, top 53 bits) as it walks the hidden rows.
 * Every product is multiplied by a field holding 1.0 before it is added, so a compiler that fuses
 * multiply-adds fuses an exact product and the sums round as the Java reference's do.
 */
final class SyntheticKeysAparapi extends AparapiTask {
    long[] inputSeeds = new long[1];
    float[] weights = new float[1];
    float[] cosSin = new float[1];
    int[] shape = new int[5];
    float[] out = new float[1];
    float one = 1.0f;

    @Override
    void bind(List<Object> args) {
        inputSeeds = ((LongArray) args.get(0)).toHeapArray();
        weights = ((FloatArray) args.get(1)).toHeapArray();
        cosSin = ((FloatArray) args.get(2)).toHeapArray();
        shape = ((IntArray) args.get(3)).toHeapArray();
        out = ((FloatArray) args.get(4)).toHeapArray();
    }

    @Override
    int globalSize() {
        return shape[4] * (shape[1] + shape[2] / 2 + shape[3]);
    }

    @Override
    public void run() {
        int latent = shape[1];
        int rope = shape[2];
        int units = latent + rope / 2 + shape[3];
        int width = latent + rope + shape[3];
        int i = getGlobalId();
        if (i < shape[4] * units) {
            int t = i / units;
            int u = i - t * units;
            if (u < latent) {
                out[t * width + u] = project(t, u, width);
            } else if (u < latent + rope / 2) {
                int j = u - latent;
                int col = latent + 2 * j;
                float a = project(t, col, width);
                float b = project(t, col + 1, width);
                float c = cosSin[t * rope + 2 * j];
                float s = cosSin[t * rope + 2 * j + 1];
                float ac = a * c;
                float bs = b * s;
                float as = a * s;
                float bc = b * c;
                out[t * width + col] = ac * one - bs;
                out[t * width + col + 1] = as * one + bc;
            } else {
                int col = u - latent - rope / 2 + latent + rope;
                out[t * width + col] = project(t, col, width);
            }
        }
    }

    /** Column {@code col} of token {@code t}'s projection, the input regenerated row by row. */
    private float project(int t, int col, int width) {
        long state = inputSeeds[t];
        float acc = 0.0f;
        for (int h = 0; h < shape[0]; h++) {
            state = state + 0x9E3779B97F4A7C15L;
            long z = state;
            z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
            z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
            z = z ^ (z >>> 31);
            double d = (double) (z >>> 11) * 0x1.0p-53;
            float x = (float) (2.0 * d - 1.0);
            float product = x * weights[h * width + col];
            acc = acc + product * one;
        }
        return acc;
    }
}
