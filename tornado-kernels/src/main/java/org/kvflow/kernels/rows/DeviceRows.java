package org.kvflow.kernels.rows;

import java.util.Objects;
import org.kvflow.kernels.api.DeviceRegion;

/**
 * The rows of {@code count} tokens as kernels left them in device memory, for a page memory on
 * the same device to store in place ({@link StoreRows#store}): latent fp8 codes
 * ({@code count × C} bytes) and their per-128 scales ({@code count × ⌈C/128⌉} floats) for fp8
 * layouts, the latent floats ({@code count × C}) for bf16 layouts, the rope floats
 * ({@code count × R}), the index fp8 codes ({@code count × I}) and their scales
 * ({@code count × ⌈I/128⌉} floats).
 */
public record DeviceRows(int count, DeviceRegion latentCodes, DeviceRegion latentScales, DeviceRegion latent, DeviceRegion rope,
                         DeviceRegion indexCodes, DeviceRegion indexScales) {
    /** @throws IllegalArgumentException if {@code count} is negative */
    public DeviceRows {
        if (count < 0) {
            throw new IllegalArgumentException("device rows of " + count + " tokens");
        }
        Objects.requireNonNull(latentCodes, "latentCodes");
        Objects.requireNonNull(latentScales, "latentScales");
        Objects.requireNonNull(latent, "latent");
        Objects.requireNonNull(rope, "rope");
        Objects.requireNonNull(indexCodes, "indexCodes");
        Objects.requireNonNull(indexScales, "indexScales");
    }

    /**
     * @throws IllegalArgumentException naming the first region too small for {@code count} rows of {@code g}
     */
    void requireFits(RowGeometry g) {
        long n = count;
        if (g.fp8()) {
            latentCodes.requireBytes("latent codes", n * g.latent());
            latentScales.requireBytes("latent scales", n * g.latentTiles() * Float.BYTES);
        } else {
            latent.requireBytes("latent floats", n * g.latent() * Float.BYTES);
        }
        rope.requireBytes("rope floats", n * g.rope() * Float.BYTES);
        indexCodes.requireBytes("index codes", n * g.index());
        indexScales.requireBytes("index scales", n * g.indexBlocks() * Float.BYTES);
    }
}
