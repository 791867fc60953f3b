package org.kvflow.kernels.quant;

/**
 * fp8 quantisation with one fp32 scale per tile (contract §3.7): {@code amax} = largest {@code |x|} of
 * the tile, {@code scale = amax / 448f} ({@code 1.0f} when {@code amax = 0}), {@code q = fp8(x /
 * scale)}; dequantisation is {@code float(q) · scale}.
 */
public final class TileQuant {
    private TileQuant() {}

    /** The scale of {@code x[from .. from+len)}. */
    public static float scale(float[] x, int from, int len) {
        float amax = 0f;
        for (int i = from; i < from + len; i++) {
            amax = Math.max(amax, Math.abs(x[i]));
        }
        return amax == 0f ? 1.0f : amax / Fp8E4m3.MAX;
    }

    /** {@code fp8(x / scale)}. */
    public static byte quantize(float x, float scale) {
        return Fp8E4m3.encode(x / scale);
    }

    /** {@code float(q) · scale}. */
    public static float dequantize(byte q, float scale) {
        return Fp8E4m3.decode(q) * scale;
    }
}
