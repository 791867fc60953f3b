package org.kvflow.kernels.quant;

import java.util.Arrays;

/**
 * The fp32 value of every fp8 e4m3 code, made once from {@link Fp8E4m3#decode}: host loops that
 * dequantise whole rows look a code up instead of decoding it, and device kernels get the table
 * as an argument. Bit-identical to {@link Fp8E4m3#decode}.
 */
public final class Fp8Table {
    private static final float[] VALUES = new float[256];

    static {
        for (int c = 0; c < VALUES.length; c++) {
            VALUES[c] = Fp8E4m3.decode((byte) c);
        }
    }

    private Fp8Table() {}

    /** The value of {@code code}. */
    public static float value(byte code) {
        return VALUES[code & 0xFF];
    }

    /** The values of codes {@code 0 .. n-1} (a copy). */
    public static float[] first(int n) {
        return Arrays.copyOf(VALUES, n);
    }
}
