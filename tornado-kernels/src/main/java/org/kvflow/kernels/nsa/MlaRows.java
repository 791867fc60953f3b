package org.kvflow.kernels.nsa;

import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.quant.Bf16;
import org.kvflow.kernels.quant.Fp8Table;
import org.kvflow.kernels.quant.TileQuant;

/**
 * Codec of one MLA latent-KV row (contract §3.2, §3.8 step 5), little-endian. fp8 (NSA "fp8 with
 * scales"): latent quantised per 128-wide tile, then one fp32 scale per tile, then rope as bf16.
 * bf16: latent then rope, both bf16.
 */
public final class MlaRows {
    private MlaRows() {}

    /** Writes the row of {@code (latent, rope)} at {@code dst[off .. off + layout.mlaRowBytes())}. */
    public static void encode(float[] latent, float[] rope, KvLayout layout, byte[] dst, int off) {
        requireNsa(layout);
        int c = latent.length;
        if (layout.dtype() == KvDtype.BF16) {
            for (int i = 0; i < c; i++) {
                Bytes.putShort(dst, off + 2 * i, Bf16.encode(latent[i]));
            }
        } else {
            int tiles = KvLayout.tiles(c);
            for (int t = 0; t < tiles; t++) {
                int from = t * KvLayout.QUANT_TILE;
                int len = Math.min(KvLayout.QUANT_TILE, c - from);
                float scale = TileQuant.scale(latent, from, len);
                for (int i = from; i < from + len; i++) {
                    dst[off + i] = TileQuant.quantize(latent[i], scale);
                }
                Bytes.putFloat(dst, off + layout.mlaScaleOffset() + KvLayout.SCALE_BYTES * t, scale);
            }
        }
        putRope(rope, layout, dst, off);
    }

    /**
     * Writes an fp8 row whose latent is already quantised ({@code C} codes from
     * {@code codes[codesOff..]}, one scale per 128-wide tile from {@code scales[scalesOff..]}):
     * with the codes and scales of {@link TileQuant}, the same bytes as {@link #encode}.
     *
     * @throws IllegalArgumentException if the layout is not fp8
     */
    public static void encodeQuantized(byte[] codes, int codesOff, float[] scales, int scalesOff, float[] rope, KvLayout layout,
                                       byte[] dst, int off) {
        requireNsa(layout);
        if (layout.dtype() == KvDtype.BF16) {
            throw new IllegalArgumentException("a bf16 row holds no fp8 codes");
        }
        int c = layout.shape().latentDim();
        System.arraycopy(codes, codesOff, dst, off, c);
        for (int t = 0; t < KvLayout.tiles(c); t++) {
            Bytes.putFloat(dst, off + layout.mlaScaleOffset() + KvLayout.SCALE_BYTES * t, scales[scalesOff + t]);
        }
        putRope(rope, layout, dst, off);
    }

    private static void putRope(float[] rope, KvLayout layout, byte[] dst, int off) {
        int ropeOff = off + layout.mlaRopeOffset();
        for (int r = 0; r < rope.length; r++) {
            Bytes.putShort(dst, ropeOff + 2 * r, Bf16.encode(rope[r]));
        }
    }

    /** Dequantises the key {@code K = deq(latent) ‖ rope} ({@code C+R} floats) of the row at {@code src[off]}. */
    public static void decodeKey(byte[] src, int off, KvLayout layout, float[] key) {
        requireNsa(layout);
        int c = layout.shape().latentDim();
        if (layout.dtype() == KvDtype.BF16) {
            for (int i = 0; i < c; i++) {
                key[i] = Bf16.decode(Bytes.getShort(src, off + 2 * i));
            }
        } else {
            for (int tile = 0; tile * KvLayout.QUANT_TILE < c; tile++) {
                float scale = Bytes.getFloat(src, off + layout.mlaScaleOffset() + KvLayout.SCALE_BYTES * tile);
                for (int i = tile * KvLayout.QUANT_TILE; i < Math.min(c, (tile + 1) * KvLayout.QUANT_TILE); i++) {
                    key[i] = Fp8Table.value(src[off + i]) * scale; // = TileQuant.dequantize, by table
                }
            }
        }
        int ropeOff = off + layout.mlaRopeOffset();
        for (int r = 0; r < layout.shape().ropeDim(); r++) {
            key[c + r] = Bf16.decode(Bytes.getShort(src, ropeOff + 2 * r));
        }
    }

    private static void requireNsa(KvLayout layout) {
        if (!layout.shape().kind().hasIndexer()) {
            throw new IllegalArgumentException("the synthetic layer stores NSA MLA rows, not " + layout.shape().kind().wireName());
        }
    }
}
