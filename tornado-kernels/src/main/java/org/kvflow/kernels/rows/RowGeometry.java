package org.kvflow.kernels.rows;

import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;

/**
 * Where a token's bytes lie in a store's pages (contract §3.2, §3.3): latent {@code C}, rope
 * {@code R} and index {@code I} widths, the page size, the MLA row's size and the offsets of its
 * scales and rope, and whether latents are fp8 (else bf16). What a page memory's row kernels need.
 */
public record RowGeometry(int latent, int rope, int index, int pageSize, int rowBytes, int scaleOffset, int ropeOffset, boolean fp8) {
    /** The geometry of {@code layout}'s rows in pages of {@code pageSize} tokens. */
    public static RowGeometry of(KvLayout layout, int pageSize) {
        return new RowGeometry(layout.shape().latentDim(), layout.shape().ropeDim(), layout.shape().indexDim(), pageSize,
                layout.mlaRowBytes(), layout.mlaScaleOffset(), layout.mlaRopeOffset(), layout.dtype() != KvDtype.BF16);
    }

    /** Per-128 scales of one index key. */
    public int indexBlocks() {
        return KvLayout.tiles(index);
    }

    /** Per-128 scales of one fp8 latent. */
    public int latentTiles() {
        return KvLayout.tiles(latent);
    }
}
