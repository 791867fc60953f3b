package org.kvflow.kernels.quant;

import java.util.stream.IntStream;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;

/**
 * fp8 e4m3 tile quantisation as kernels (contract §3.7): the reference semantics of {@link TileQuant}
 * over arrays of rows of {@code rowWidth} values, each row cut into tiles of {@code tile} values
 * (a row's last tile may be shorter; {@code rowWidth = x.length} is one row). Tiles are numbered
 * row by row. Device twins must give the same bytes and floats, bit for bit. (Kernel locals must
 * not use OpenCL C type names such as {@code half}: Aparapi copies names through.)
 */
public final class QuantKernels {
    private QuantKernels() {}

    /** {@code scales[t]} = the scale of tile {@code t}; {@code codes[i] = fp8(x[i] / scale)} of its tile. */
    public static void quantizeTiles(FloatArray x, int rowWidth, int tile, FloatArray scales, ByteArray codes) {
        float[] v = x.toHeapArray();
        int perRow = (rowWidth + tile - 1) / tile;
        IntStream.range(0, scales.getSize()).parallel().forEach(t -> {
            int row = t / perRow;
            int first = (t - row * perRow) * tile;
            int from = row * rowWidth + first;
            int len = Math.min(tile, rowWidth - first);
            float scale = TileQuant.scale(v, from, len);
            scales.set(t, scale);
            for (int i = from; i < from + len; i++) {
                codes.set(i, TileQuant.quantize(v[i], scale));
            }
        });
    }

    /** {@code x[i] = float(codes[i]) · scale} of the tile holding {@code i}. */
    public static void dequantizeTiles(ByteArray codes, int rowWidth, int tile, FloatArray scales, FloatArray x) {
        int perRow = (rowWidth + tile - 1) / tile;
        IntStream.range(0, x.getSize()).parallel().forEach(i -> x.set(i,
                TileQuant.dequantize(codes.get(i), scales.get(i / rowWidth * perRow + i % rowWidth / tile))));
    }
}
