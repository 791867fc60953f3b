package org.kvflow.samples.byom;

import java.util.stream.IntStream;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * The sample layer's kernels, written through kvflow's kernel API: plain Java over device arrays,
 * one parallel loop each, run by whichever device the pipeline was given.
 */
public final class HashLayerKernels {
    private HashLayerKernels() {}

    /**
     * The key side of {@code n} tokens: a row of {@code table} picked by token id becomes the latent
     * ({@code shape = {width, rope, n}}), the rope part is the latent's head rotated by position, and the
     * index key is the latent's first {@code rope} values.
     */
    public static void keys(IntArray tokens, FloatArray table, IntArray shape, FloatArray latent, FloatArray ropeOut, FloatArray index) {
        int width = shape.get(0);
        int rope = shape.get(1);
        int rows = table.getSize() / width;
        IntStream.range(0, shape.get(2)).parallel().forEach(t -> {
            int row = Math.floorMod(tokens.get(2 * t), rows);
            int pos = tokens.get(2 * t + 1);
            for (int i = 0; i < width; i++) {
                latent.set(t * width + i, table.get(row * width + i));
            }
            for (int j = 0; j < rope / 2; j++) {
                float angle = pos / (float) Math.pow(10000, 2.0 * j / rope);
                float a = table.get(row * width + 2 * j);
                float b = table.get(row * width + 2 * j + 1);
                ropeOut.set(t * rope + 2 * j, a * (float) Math.cos(angle) - b * (float) Math.sin(angle));
                ropeOut.set(t * rope + 2 * j + 1, a * (float) Math.sin(angle) + b * (float) Math.cos(angle));
                index.set(t * rope + 2 * j, a);
                index.set(t * rope + 2 * j + 1, b);
            }
        });
    }

    /**
     * Causal dot-product attention of {@code q} (one row of {@code width} per query) over the key
     * rows {@code keys} (rows of {@code width}): query {@code i} sees keys {@code 0..counts[i]-1};
     * {@code out} gets the softmax mix of their first {@code latent} values ({@code shape = {width, latent}}).
     */
    public static void attend(FloatArray q, FloatArray keys, IntArray counts, IntArray shape, FloatArray out) {
        int width = shape.get(0);
        int latent = shape.get(1);
        IntStream.range(0, counts.getSize()).parallel().forEach(i -> {
            int n = counts.get(i);
            float[] p = new float[n];
            float max = Float.NEGATIVE_INFINITY;
            for (int j = 0; j < n; j++) {
                float dot = 0;
                for (int d = 0; d < width; d++) {
                    dot += q.get(i * width + d) * keys.get(j * width + d);
                }
                p[j] = dot / (float) Math.sqrt(width);
                max = Math.max(max, p[j]);
            }
            float sum = 0;
            for (int j = 0; j < n; j++) {
                p[j] = (float) Math.exp(p[j] - max);
                sum += p[j];
            }
            for (int d = 0; d < latent; d++) {
                float acc = 0;
                for (int j = 0; j < n; j++) {
                    acc += p[j] / sum * keys.get(j * width + d);
                }
                out.set(i * latent + d, acc);
            }
        });
    }
}
