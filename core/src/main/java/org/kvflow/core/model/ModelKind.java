package org.kvflow.core.model;

import java.util.Locale;
import org.kvflow.core.json.WireEnum;

/** Attention family of the served model (contract §10): only the NSA/DSA MLA kinds have an indexer cache. */
public enum ModelKind implements WireEnum {
    /** DeepSeek V3.2 / GLM-5 dimensions: latent 512, rope 64, index head 128; page size 64. */
    NSA_MLA,
    /** Test profile: NSA/MLA structure with toy dimensions and any power-of-two page size. */
    TOY_MLA,
    /** MLA without the NSA indexer. */
    MLA,
    /** Multi-head attention. */
    MHA;

    @Override
    public String wireName() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /** True for the kinds that carry an NSA indexer K cache beside the latent KV. */
    public boolean hasIndexer() {
        return this == NSA_MLA || this == TOY_MLA;
    }
}
