package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;

/**
 * Twin of {@code QuantKernels.quantizeTiles}: one work-item per tile. Rounding to the nearest fp8
 * value (ties to the even code) is done against a table of the 127 non-negative finite fp8
 * values rather than with bit tricks Aparapi cannot translate: the midpoint of two neighbouring
 * fp8 values is exact in fp32, so the comparison decides exactly as the Java encoder's
 * {@code rint} does. Divisions go through double: OpenCL's fp32 division need not be correctly
 * rounded (NVIDIA's is not: scales came out one ulp off), while a double quotient rounded to
 * float is the correctly rounded fp32 quotient; the divisors come from fields so the compiler
 * cannot prove they are floats and turn the division back into an fp32 one (it did with constants). A NaN in a tile makes its maximum NaN for good, as {@code Math.max} does.
 */
final class QuantizeAparapi extends AparapiTask {
    float[] x = new float[1];
    float[] scales = new float[1];
    byte[] codes = new byte[1];
    final float[] values = fp8Table(127);
    /** Double fields the compiler cannot see through, so it cannot narrow the divisions back to fp32. */
    double max = 448.0;
    double unit = 1.0;
    float nan = Float.NaN;
    int rowWidth;
    int tile;
    int perRow;
    int tiles;

    @Override
    void bind(List<Object> args) {
        x = ((FloatArray) args.get(0)).toHeapArray();
        rowWidth = (Integer) args.get(1);
        tile = (Integer) args.get(2);
        scales = ((FloatArray) args.get(3)).toHeapArray();
        codes = ((ByteArray) args.get(4)).toHeapArray();
        perRow = (rowWidth + tile - 1) / tile;
        tiles = scales.length;
    }

    /** Scales and codes. */
    @Override
    List<Object> outputs(List<Object> args) {
        return List.of(args.get(3), args.get(4));
    }

    @Override
    void putOwn() {
        put(values);
    }

    @Override
    int globalSize() {
        return tiles;
    }

    @Override
    public void run() {
        int t = getGlobalId();
        if (t < tiles) {
            int row = t / perRow;
            int first = (t - row * perRow) * tile;
            int from = row * rowWidth + first;
            int end = from + min(tile, rowWidth - first);
            float amax = 0f;
            for (int i = from; i < end; i++) {
                float a = abs(x[i]);
                if (a != a || a > amax) {
                    amax = a;
                }
            }
            float scale = 1.0f;
            if (amax != 0f) {
                scale = (float) ((double) amax / (max * unit));
            }
            if (scale != scale) {
                scale = nan; // Java's canonical NaN bits, not the device's
            }
            scales[t] = scale;
            double divisor = scale * unit;
            for (int i = from; i < end; i++) {
                codes[i] = (byte) encode((float) ((double) x[i] / divisor));
            }
        }
    }

    private int encode(float v) {
        int code = 0x7F;
        if (v == v) {
            int sign = 0;
            if (v < 0f || (v == 0f && 1f / v < 0f)) {
                sign = 0x80;
            }
            float a = abs(v);
            int c = 0x7E;
            if (a < 448f) {
                int lo = 0;
                int hi = 126;
                while (lo < hi) {
                    int mid = (lo + hi + 1) >> 1;
                    if (values[mid] <= a) {
                        lo = mid;
                    } else {
                        hi = mid - 1;
                    }
                }
                c = lo;
                if (c < 126) {
                    float midpoint = (values[c] + values[c + 1]) * 0.5f;
                    if (a > midpoint || (a == midpoint && (c & 1) == 1)) {
                        c = c + 1;
                    }
                }
            }
            code = sign | c;
        }
        return code;
    }
}
