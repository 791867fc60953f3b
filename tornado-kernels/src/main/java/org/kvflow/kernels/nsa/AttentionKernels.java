package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.function.IntFunction;
import java.util.stream.IntStream;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * MLA sparse attention reference (contract §3.8 step 7, §7.1): for a query {@code q} ({@code C+R})
 * and the keys of the selected positions in ascending logical position, {@code logit_j = dot(q,
 * K_j) / sqrt(C+R)}, a max-subtracted softmax in fp32, and the weighted sum of the latent parts
 * (V is the latent). Numerically stable: every weight is {@code exp(x ≤ 0)}.
 */
public final class AttentionKernels {
    private AttentionKernels() {}

    /**
     * {@link #attend} for a batch of queries, the kernel form: with {@code shape = {width, latent,
     * nq, count}}, query {@code i} ({@code width} floats at {@code i·width}) attends over its own
     * {@code count} selected keys ({@code keys} holds {@code nq × count} rows of {@code width});
     * {@code weights} ({@code ≥ nq × count}) is scratch for the softmax numerators and {@code out}
     * receives {@code nq × latent}. The shape is data (one compiled kernel for every size up to the
     * arrays' capacity). Same operation order as {@link #attend}; devices may differ by their
     * {@code exp} and by fused multiply-adds.
     */
    public static void attendBatch(FloatArray queries, FloatArray keys, IntArray shape, FloatArray weights, FloatArray out) {
        int width = shape.get(0);
        int count = shape.get(3);
        attendEach(queries, shape, out, i -> Arrays.copyOfRange(keys.toHeapArray(), i * count * width, (i + 1) * count * width));
    }

    /**
     * {@link #attendBatch} with the gather fused in: query {@code i} attends over rows
     * {@code selected[i·count + j]} ({@code j < count}, in that order) of {@code keyRows}
     * ({@code width} floats each) where {@code attendBatch} reads rows laid out per query; with
     * {@code shape = {width, latent, nq, count}}. The same result as gathering the rows first, without
     * the copy. Callers check the positions against {@code keyRows} first; the body does not.
     */
    public static void attendSelected(FloatArray queries, FloatArray keyRows, IntArray selected, IntArray shape, FloatArray weights,
                                      FloatArray out) {
        int width = shape.get(0);
        int count = shape.get(3);
        attendEach(queries, shape, out, i -> {
            float[] rows = new float[count * width];
            for (int j = 0; j < count; j++) {
                System.arraycopy(keyRows.toHeapArray(), selected.get(i * count + j) * width, rows, j * width, width);
            }
            return rows;
        });
    }

    /** {@link #attend} for each query {@code i} of the batch {@code shape} describes, over the key rows {@code rowsOf} gives it. */
    private static void attendEach(FloatArray queries, IntArray shape, FloatArray out, IntFunction<float[]> rowsOf) {
        int width = shape.get(0);
        int latent = shape.get(1);
        int count = shape.get(3);
        IntStream.range(0, shape.get(2)).parallel().forEach(i -> {
            float[] o = new float[latent];
            attend(Arrays.copyOfRange(queries.toHeapArray(), i * width, (i + 1) * width), rowsOf.apply(i), count, latent, o);
            System.arraycopy(o, 0, out.toHeapArray(), i * latent, latent);
        });
    }

    /**
     * @param q      the query, {@code C+R} floats
     * @param keys   {@code count} keys of {@code C+R} floats each, row after row, ascending position
     * @param count  selected positions (≥ 1)
     * @param latent {@code C}
     * @param out    receives {@code C} floats
     */
    public static void attend(float[] q, float[] keys, int count, int latent, float[] out) {
        int width = q.length;
        float sqrtWidth = (float) Math.sqrt(width);
        float[] logits = new float[count];
        float mx = Float.NEGATIVE_INFINITY;
        for (int j = 0; j < count; j++) {
            logits[j] = IndexerKernels.dot(q, keys, j * width, width) / sqrtWidth;
            mx = Math.max(mx, logits[j]);
        }
        float sum = 0.0f;
        for (int j = 0; j < count; j++) {
            logits[j] = (float) StrictMath.exp(logits[j] - mx);
            sum = sum + logits[j];
        }
        for (int c = 0; c < latent; c++) {
            float acc = 0.0f;
            for (int j = 0; j < count; j++) {
                float product = logits[j] * keys[j * width + c];
                acc = acc + product;
            }
            out[c] = acc / sum;
        }
    }
}
