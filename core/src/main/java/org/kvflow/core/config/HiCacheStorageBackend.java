package org.kvflow.core.config;

import org.kvflow.core.json.WireEnum;

/** HiCache L3 storage backend (contract §10.3); {@code none} keeps HiCache at L2. */
public enum HiCacheStorageBackend implements WireEnum {
    NONE,
    FILE,
    MOONCAKE,
    HF3FS,
    NIXL,
    AIBRIX,
    EIC,
    DYNAMIC
}
