package org.kvflow.kernels.nsa;

import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.quant.TileQuant;

/**
 * Codec of a token's NSA index key inside an indexer page (contract §3.3): fp8 data of token {@code t}
 * at {@code t·I}, its fp32 scales (one per 128-dim block) in the scale region starting at
 * {@code ps·I}. Data and scale of one token are not adjacent, which is why pages copy whole.
 */
public final class IndexRows {
    private IndexRows() {}

    /** Writes token {@code t}'s index key into the page starting at {@code page[pageOff]}. */
    public static void encode(float[] indexKey, int pageSize, int t, byte[] page, int pageOff) {
        int dim = indexKey.length;
        int blocks = KvLayout.tiles(dim);
        for (int b = 0; b < blocks; b++) {
            int from = b * KvLayout.QUANT_TILE;
            int len = Math.min(KvLayout.QUANT_TILE, dim - from);
            float scale = TileQuant.scale(indexKey, from, len);
            for (int d = from; d < from + len; d++) {
                page[pageOff + t * dim + d] = TileQuant.quantize(indexKey[d], scale);
            }
            Bytes.putFloat(page, scaleOffset(pageOff, pageSize, dim, t, b), scale);
        }
    }

    /** Dequantises token {@code t}'s index key from the page at {@code page[pageOff]}. */
    public static void decode(byte[] page, int pageOff, int pageSize, int t, float[] indexKey) {
        int dim = indexKey.length;
        for (int d = 0; d < dim; d++) {
            float scale = Bytes.getFloat(page, scaleOffset(pageOff, pageSize, dim, t, d / KvLayout.QUANT_TILE));
            indexKey[d] = TileQuant.dequantize(page[pageOff + t * dim + d], scale);
        }
    }

    /**
     * Copies token {@code t}'s raw index key out of the page: its {@code dim} fp8 codes to
     * {@code codes[codesOff..]} and its per-128 scales to {@code scales[scalesOff..]} (what the
     * device indexer reads; {@link #decode} is the dequantised form).
     */
    public static void rawRow(byte[] page, int pageOff, int pageSize, int dim, int t, byte[] codes, int codesOff, float[] scales, int scalesOff) {
        System.arraycopy(page, pageOff + t * dim, codes, codesOff, dim);
        for (int b = 0; b < KvLayout.tiles(dim); b++) {
            scales[scalesOff + b] = Bytes.getFloat(page, scaleOffset(pageOff, pageSize, dim, t, b));
        }
    }

    /**
     * Writes token {@code t}'s index key, already quantised, into the page: the inverse of
     * {@link #rawRow} ({@code dim} codes from {@code codes[codesOff..]}, its per-128 scales from
     * {@code scales[scalesOff..]}); with {@link #encode}'s codes and scales the same bytes.
     */
    public static void put(byte[] codes, int codesOff, float[] scales, int scalesOff, int dim, int pageSize, int t, byte[] page, int pageOff) {
        System.arraycopy(codes, codesOff, page, pageOff + t * dim, dim);
        for (int b = 0; b < KvLayout.tiles(dim); b++) {
            Bytes.putFloat(page, scaleOffset(pageOff, pageSize, dim, t, b), scales[scalesOff + b]);
        }
    }

    private static int scaleOffset(int pageOff, int pageSize, int dim, int t, int block) {
        int blocks = KvLayout.tiles(dim);
        return pageOff + pageSize * dim + KvLayout.SCALE_BYTES * (t * blocks + block);
    }
}
