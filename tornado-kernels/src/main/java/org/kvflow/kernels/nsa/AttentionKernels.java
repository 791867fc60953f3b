package org.kvflow.kernels.nsa;

import java.util.Arrays;
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
        int latent = shape.get(1);
        int count = shape.get(3);
        IntStream.range(0, shape.get(2)).parallel().forEach(i -> {
            float[] q = Arrays.copyOfRange(queries.toHeapArray(), i * width, (i + 1) * width);
            float[] rows = Arrays.copyOfRange(keys.toHeapArray(), i * count * width, (i + 1) * count * width);
            float[] o = new float[latent];
            attend(q, rows, count, latent, o);
            System.arraycopy(o, 0, out.toHeapArray(), i * latent, latent);
        });
    }

    /**
     * The key rows a batch of queries selected, in the layout {@link #attendBatch} reads: with
     * {@code shape = {width, nq, k}}, row {@code (i, j)} of {@code picked} ({@code width} floats at
     * {@code (i·k + j)·width}) ← row {@code selected[i·k + j]} of {@code keyRows}. Callers check the
     * positions against {@code keyRows} first; the body does not.
     */
    public static void gatherRows(FloatArray keyRows, IntArray selected, IntArray shape, FloatArray picked) {
        int width = shape.get(0);
        IntStream.range(0, shape.get(1) * shape.get(2)).parallel().forEach(r ->
                System.arraycopy(keyRows.toHeapArray(), selected.get(r) * width, picked.toHeapArray(), r * width, width));
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
