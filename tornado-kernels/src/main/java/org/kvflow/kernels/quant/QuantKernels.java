package org.kvflow.kernels.quant;

import java.util.stream.IntStream;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;

/**
 * fp8 e4m3 tile quantisation as kernels (SPEC §3.7): the reference semantics of {@link TileQuant}
 * over whole arrays cut into tiles of {@code tile} values (the last tile may be shorter). Device
 * twins must give the same bytes and floats, bit for bit. (Kernel locals must not use OpenCL C
 * type names such as {@code half}: Aparapi copies names through.)
 */
public final class QuantKernels {
    private QuantKernels() {}

    /** {@code scales[t]} = the scale of tile {@code t} of {@code x}; {@code codes[i] = fp8(x[i] / scale)}. */
    public static void quantizeTiles(FloatArray x, int tile, FloatArray scales, ByteArray codes) {
        float[] v = x.toHeapArray();
        IntStream.range(0, scales.getSize()).parallel().forEach(t -> {
            int from = t * tile;
            int len = Math.min(tile, v.length - from);
            float scale = TileQuant.scale(v, from, len);
            scales.set(t, scale);
            for (int i = from; i < from + len; i++) {
                codes.set(i, TileQuant.quantize(v[i], scale));
            }
        });
    }

    /** {@code x[i] = float(codes[i]) · scales[i / tile]}. */
    public static void dequantizeTiles(ByteArray codes, int tile, FloatArray scales, FloatArray x) {
        IntStream.range(0, x.getSize()).parallel().forEach(i -> x.set(i, TileQuant.dequantize(codes.get(i), scales.get(i / tile))));
    }
}
