package org.kvflow.core.model;

import org.kvflow.core.json.WireEnum;

/** Element type of the MLA latent KV cache (contract §3.2). The indexer K cache is always fp8. */
public enum KvDtype implements WireEnum {
    BF16,
    FP8_E4M3
}
