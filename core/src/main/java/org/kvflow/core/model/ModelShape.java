package org.kvflow.core.model;

import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Dimensions of an MLA model as far as its KV cache is concerned (contract §3.1, §3.8).
 *
 * @param name        a label for reports
 * @param kind        attention family; must be an MLA kind
 * @param layers      number of layers {@code L}
 * @param latentDim   {@code kv_lora_rank}, the latent ("nope") width {@code C}
 * @param ropeDim     {@code qk_rope_head_dim} {@code R}, even
 * @param indexDim    indexer head dim {@code I} (ignored without an indexer)
 */
public record ModelShape(String name, ModelKind kind, int layers, int latentDim, int ropeDim, int indexDim) {

    /** DeepSeek V3.2: 61 layers, latent 512, rope 64, index 128. */
    public static final ModelShape DEEPSEEK_V32 = new ModelShape("deepseek-v3.2", ModelKind.NSA_MLA, 61, 512, 64, 128);
    /** GLM-5: 78 layers, same per-layer dimensions as DeepSeek V3.2. */
    public static final ModelShape GLM5 = new ModelShape("glm-5", ModelKind.NSA_MLA, 78, 512, 64, 128);

    /** The named production shapes, for CLI and reports. */
    public static final List<ModelShape> PRESETS = List.of(DEEPSEEK_V32, GLM5);

    /** The preset called {@code name} ({@code deepseek-v3.2}, {@code glm-5}). */
    public static Optional<ModelShape> preset(String name) {
        return PRESETS.stream().filter(p -> p.name.equals(name)).findFirst();
    }

    public ModelShape {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(kind, "kind");
        if (kind == ModelKind.MHA) {
            throw new IllegalArgumentException("kvflow models MLA KV caches only, not " + kind.wireName());
        }
        positive("layers", layers);
        positive("latentDim", latentDim);
        if (ropeDim < 0 || ropeDim % 2 != 0) {
            throw new IllegalArgumentException("ropeDim must be even and >= 0, was " + ropeDim);
        }
        if (kind.hasIndexer()) {
            positive("indexDim", indexDim);
        }
    }

    /** The same per-layer dimensions with another layer count. */
    public ModelShape withLayers(int newLayers) {
        return new ModelShape(name, kind, newLayers, latentDim, ropeDim, indexDim);
    }

    private static void positive(String field, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(field + " must be >= 1, was " + value);
        }
    }
}
