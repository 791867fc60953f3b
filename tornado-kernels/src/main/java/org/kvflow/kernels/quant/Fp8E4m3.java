package org.kvflow.kernels.quant;

/**
 * OCP fp8 e4m3fn (contract §3.7): bias 7, largest finite ±448, subnormals down to 2^−9, no
 * infinities, NaN = {@code 0x7F}/{@code 0xFF}. Encoding rounds to nearest even; a finite value or
 * infinity beyond ±448 saturates to ±448; NaN encodes as {@code 0x7F}; −0.0 as {@code 0x80}.
 */
public final class Fp8E4m3 {
    /** Largest finite magnitude. */
    public static final float MAX = 448f;
    /** Positive NaN code. */
    public static final byte NAN = 0x7F;

    private Fp8E4m3() {}

    /** fp32 → fp8 bits. */
    public static byte encode(float value) {
        if (value != value) {
            return NAN;
        }
        int sign = (Float.floatToRawIntBits(value) >>> 24) & 0x80;
        float a = Math.abs(value);
        if (a >= MAX) {
            return (byte) (sign | 0x7E);
        }
        int exp = Math.getExponent(a);
        int bits;
        if (exp < -6) {
            // subnormal grid of 2^-9; a result of 8 is exactly the smallest normal, code 0x08
            bits = (int) Math.rint(a * 512.0);
        } else {
            int mant = (int) Math.rint(Math.scalb((double) a, 3 - exp)); // in [8, 16]
            if (mant == 16) {
                mant = 8;
                exp++;
            }
            bits = ((exp + 7) << 3) | (mant - 8);
        }
        return (byte) (sign | bits);
    }

    /** fp8 bits → fp32 (exact). */
    public static float decode(byte code) {
        int b = code & 0xFF;
        int e = (b >>> 3) & 0xF;
        int m = b & 7;
        if (e == 15 && m == 7) {
            return Float.NaN;
        }
        float magnitude = e == 0 ? Math.scalb((float) m, -9) : Math.scalb((float) (8 + m), e - 10);
        return (b & 0x80) != 0 ? -magnitude : magnitude;
    }
}
