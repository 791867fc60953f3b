package org.kvflow.kernels.linalg;

import java.util.stream.IntStream;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Dense matrix kernels: a batched, strided product ({@link #gemm}, the tensor-core twin on cuda)
 * and a row softmax. Sums run in ascending {@code k}; twins sum in another order and differ by
 * rounding only.
 */
public final class MatrixKernels {
    private MatrixKernels() {}

    /**
     * The batched product of {@link GemmShape} (its ints in {@code shape}); {@code rows} holds B's
     * gathered row indices (any array when not gathered).
     */
    public static void gemm(FloatArray a, FloatArray b, IntArray rows, IntArray shape, FloatArray c) {
        int[] s = shape.toHeapArray();
        int m = s[0];
        int n = s[1];
        int k = s[2];
        float[] av = a.toHeapArray();
        float[] bv = b.toHeapArray();
        int[] rv = rows.toHeapArray();
        float[] cv = c.toHeapArray();
        IntStream.range(0, s[3] * m).parallel().forEach(zm -> {
            int z = zm / m;
            int row = zm - z * m;
            int aBase = s[7] + z * s[10] + row * s[4];
            for (int col = 0; col < n; col++) {
                float acc = 0f;
                for (int i = 0; i < k; i++) {
                    int at = bIndex(s, rv, z, col, i);
                    acc += at < 0 ? 0f : av[aBase + i] * bv[at];
                }
                cv[s[9] + z * s[12] + row * s[6] + col] = acc;
            }
        });
    }

    /** Where {@code B[z](n, k)} lies in b, or -1 for a gathered row of -1 (a padded selection: zeros). */
    static int bIndex(int[] s, int[] rows, int z, int n, int k) {
        int r = s[13] != 0 ? k : n;
        int col = s[13] != 0 ? n : k;
        if (s[14] != 0) {
            r = rows[z * s[15] + r];
        }
        return r < 0 ? -1 : s[8] + z * s[11] + r * s[5] + col;
    }

    /**
     * Softmax of rows after scaling by {@code scale[0]}, in place, sums ascending: with
     * {@code shape = {rows, width, rowsPerCount}}, row {@code r} has {@code counts[r / rowsPerCount]}
     * entries ({@code x = exp(s·x − max) / Σ} over them) and zeros after them (say a query's heads
     * over the keys it selected).
     */
    public static void softmaxRows(FloatArray x, FloatArray scale, IntArray counts, IntArray shape) {
        int width = shape.get(1);
        int perCount = shape.get(2);
        float s = scale.get(0);
        float[] v = x.toHeapArray();
        IntStream.range(0, shape.get(0)).parallel().forEach(r -> {
            int base = r * width;
            int n = Math.min(width, counts.get(r / perCount));
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < n; j++) {
                max = Math.max(max, v[base + j] * s);
            }
            float sum = 0f;
            for (int j = 0; j < n; j++) {
                float e = (float) Math.exp(v[base + j] * s - max);
                v[base + j] = e;
                sum += e;
            }
            for (int j = 0; j < width; j++) {
                v[base + j] = j < n ? v[base + j] / sum : 0f;
            }
        });
    }
}
