package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;

/**
 * Twin of {@code QuantKernels.dequantizeTiles}: one work-item per value, fp8 decoded through a
 * table built from the Java codec; a NaN result is written as Java's canonical NaN, so the floats
 * match bit for bit.
 */
final class DequantizeAparapi extends AparapiTask {
    byte[] codes = new byte[1];
    float[] scales = new float[1];
    float[] x = new float[1];
    final float[] lut = fp8Table(256);
    /** Java's canonical NaN, copied (not computed) so its bits survive. */
    float nan = Float.NaN;
    int rowWidth;
    int tile;
    int perRow;
    int n;

    @Override
    void bind(List<Object> args) {
        codes = ((ByteArray) args.get(0)).toHeapArray();
        rowWidth = (Integer) args.get(1);
        tile = (Integer) args.get(2);
        scales = ((FloatArray) args.get(3)).toHeapArray();
        x = ((FloatArray) args.get(4)).toHeapArray();
        perRow = (rowWidth + tile - 1) / tile;
        n = x.length;
    }

    @Override
    void putOwn() {
        put(lut);
    }

    @Override
    int globalSize() {
        return n;
    }

    @Override
    public void run() {
        int i = getGlobalId();
        if (i < n) {
            int row = i / rowWidth;
            float v = lut[codes[i] & 0xFF] * scales[row * perRow + (i - row * rowWidth) / tile];
            if (v != v) {
                v = nan; // devices produce other NaN payloads; Java's arithmetic gives the canonical one
            }
            x[i] = v;
        }
    }
}
