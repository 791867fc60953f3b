package org.kvflow.kernels.quant;

/** bf16 (contract §3.7): the upper 16 bits of fp32 after round-to-nearest-even; NaN → {@code 0x7FC0}. */
public final class Bf16 {
    private Bf16() {}

    /** fp32 → bf16 bits. */
    public static short encode(float value) {
        if (value != value) {
            return 0x7FC0;
        }
        int bits = Float.floatToRawIntBits(value);
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }

    /** bf16 bits → fp32 (exact). */
    public static float decode(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }
}
