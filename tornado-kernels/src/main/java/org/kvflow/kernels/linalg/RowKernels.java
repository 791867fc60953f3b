package org.kvflow.kernels.linalg;

import java.util.stream.IntStream;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Per-row kernels of a transformer layer, each over segments of rows: {@code shape = {segments,
 * width, stride, offset}} names segment {@code s} as {@code x[offset + s·stride ..] } of
 * {@code width} values. One work-item per segment on every device.
 */
public final class RowKernels {
    private RowKernels() {}

    /** RMSNorm of each segment with weight {@code g} (eps 1e-6), in place. */
    public static void rmsNormRows(FloatArray x, FloatArray g, IntArray shape) {
        int width = shape.get(1);
        float[] v = x.toHeapArray();
        IntStream.range(0, shape.get(0)).parallel().forEach(seg -> {
            int base = shape.get(3) + seg * shape.get(2);
            float sum = 0f;
            for (int i = 0; i < width; i++) {
                sum += v[base + i] * v[base + i];
            }
            float inv = (float) (1.0 / Math.sqrt(sum / width + 1e-6f));
            for (int i = 0; i < width; i++) {
                v[base + i] = g.get(i) * (v[base + i] * inv);
            }
        });
    }

    /** LayerNorm of each segment with weight {@code g} and bias {@code b} (eps 1e-6), in place. */
    public static void layerNormRows(FloatArray x, FloatArray g, FloatArray b, IntArray shape) {
        int width = shape.get(1);
        float[] v = x.toHeapArray();
        IntStream.range(0, shape.get(0)).parallel().forEach(seg -> {
            int base = shape.get(3) + seg * shape.get(2);
            float mean = 0f;
            for (int i = 0; i < width; i++) {
                mean += v[base + i];
            }
            mean = mean / width;
            float var = 0f;
            for (int i = 0; i < width; i++) {
                var += (v[base + i] - mean) * (v[base + i] - mean);
            }
            float inv = (float) (1.0 / Math.sqrt(var / width + 1e-6f));
            for (int i = 0; i < width; i++) {
                v[base + i] = (v[base + i] - mean) * inv * g.get(i) + b.get(i);
            }
        });
    }

    /**
     * Rotary embedding on consecutive pairs of each segment ({@code width} values), read from
     * {@code src} and written to {@code dst}: {@code shape = {segments, width, srcStride, srcOffset,
     * perRow, dstStride, dstOffset}} (the two may be the same array and place). Pair {@code j} of
     * segment {@code seg} turns by {@code positions[seg / perRow] · freqs[j]} (an fp32 product).
     */
    public static void ropeRows(FloatArray src, FloatArray dst, FloatArray freqs, IntArray positions, IntArray shape) {
        int width = shape.get(1);
        int perRow = shape.get(4);
        float[] in = src.toHeapArray();
        float[] out = dst.toHeapArray();
        IntStream.range(0, shape.get(0)).parallel().forEach(seg -> {
            int from = shape.get(3) + seg * shape.get(2);
            int to = shape.get(6) + seg * shape.get(5);
            float pos = positions.get(seg / perRow);
            for (int j = 0; j < width / 2; j++) {
                float angle = pos * freqs.get(j);
                float cos = (float) Math.cos(angle);
                float sin = (float) Math.sin(angle);
                float a = in[from + 2 * j];
                float bb = in[from + 2 * j + 1];
                out[to + 2 * j] = a * cos - bb * sin;
                out[to + 2 * j + 1] = a * sin + bb * cos;
            }
        });
    }

    /** The Walsh–Hadamard rotation of each segment (a power-of-two width, natural order), scaled by {@code width^-½}, in place. */
    public static void hadamardRows(FloatArray x, IntArray shape) {
        int width = shape.get(1);
        float[] v = x.toHeapArray();
        float scale = (float) (1.0 / Math.sqrt(width));
        IntStream.range(0, shape.get(0)).parallel().forEach(seg -> {
            int base = shape.get(3) + seg * shape.get(2);
            for (int h = 1; h < width; h *= 2) {
                for (int i = 0; i < width; i += 2 * h) {
                    for (int j = i; j < i + h; j++) {
                        float a = v[base + j];
                        float bb = v[base + j + h];
                        v[base + j] = a + bb;
                        v[base + j + h] = a - bb;
                    }
                }
            }
            for (int i = 0; i < width; i++) {
                v[base + i] = v[base + i] * scale;
            }
        });
    }
}
