package org.kvflow.core.model;

import java.util.Objects;

/**
 * Byte layout of one token's KV in one layer (contract §3.2, §3.3, §3.7): the MLA latent row and the
 * NSA indexer row. Quantised widths are split into 128-wide tiles, one fp32 scale per tile (a
 * shorter last tile in toy widths).
 *
 * <p>fp8 MLA row of an NSA model: {@code C} fp8 bytes, {@code ceil(C/128)} fp32 scales, {@code R}
 * bf16 rope values (656 B for 512+64). fp8 plain MLA: {@code C+R} fp8 bytes (576 B). bf16: {@code
 * (C+R)·2} (1152 B). Indexer page of {@code ps} tokens: data region {@code ps·I} bytes, then the
 * scale region {@code ps·4·ceil(I/128)} bytes (8,448 B at ps 64).
 */
public record KvLayout(ModelShape shape, KvDtype dtype) {

    /** Width of one quantisation tile / block (contract §3.1, §3.7). */
    public static final int QUANT_TILE = 128;
    /** Bytes of one fp32 scale. */
    public static final int SCALE_BYTES = 4;

    public KvLayout {
        Objects.requireNonNull(shape, "shape");
        Objects.requireNonNull(dtype, "dtype");
    }

    /** Number of 128-wide tiles covering {@code width} values. */
    public static int tiles(int width) {
        return (width + QUANT_TILE - 1) / QUANT_TILE;
    }

    /** Bytes of one MLA latent-KV row (one token, one layer). */
    public int mlaRowBytes() {
        int c = shape.latentDim();
        int r = shape.ropeDim();
        return switch (dtype) {
            case BF16 -> (c + r) * 2;
            case FP8_E4M3 -> shape.kind().hasIndexer() ? c + SCALE_BYTES * tiles(c) + 2 * r : c + r;
        };
    }

    /** Byte offset of the fp32 scales inside an fp8 NSA MLA row ({@code C}). */
    public int mlaScaleOffset() {
        return shape.latentDim();
    }

    /** Byte offset of the rope part inside an MLA row. */
    public int mlaRopeOffset() {
        int c = shape.latentDim();
        return switch (dtype) {
            case BF16 -> 2 * c;
            case FP8_E4M3 -> shape.kind().hasIndexer() ? c + SCALE_BYTES * tiles(c) : c;
        };
    }

    /** Bytes of one token's indexer K (fp8 data + its scales) in one layer; 0 without an indexer. */
    public int indexRowBytes() {
        return shape.kind().hasIndexer() ? shape.indexDim() + SCALE_BYTES * tiles(shape.indexDim()) : 0;
    }

    /** Bytes of one MLA page of one layer. */
    public long mlaPageBytes(int pageSize) {
        return (long) pageSize * mlaRowBytes();
    }

    /** Bytes of one indexer page of one layer: data region then scale region (contract §3.3). */
    public long indexPageBytes(int pageSize) {
        return (long) pageSize * indexRowBytes();
    }

    /** Byte offset of the scale region inside an indexer page ({@code ps·I}). */
    public long indexScaleRegionOffset(int pageSize) {
        return (long) pageSize * shape.indexDim();
    }

    /** {@code L·(mlaRowBytes + indexRowBytes)}: one token, all layers, both pools (contract §3.4). */
    public long bytesPerTokenAllLayers() {
        return (long) shape.layers() * (mlaRowBytes() + indexRowBytes());
    }
}
