package org.kvflow.core.config;

import org.kvflow.core.json.WireEnum;

/** HiCache host-pool layout (contract §3.6). */
public enum HiCacheLayout implements WireEnum {
    LAYER_FIRST,
    PAGE_FIRST,
    PAGE_FIRST_DIRECT,
    PAGE_HEAD
}
