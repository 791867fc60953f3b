package org.kvflow.core.config;

import org.kvflow.core.json.WireEnum;

/** How HiCache moves pages between device and host (contract §10.3). */
public enum HiCacheIoBackend implements WireEnum {
    DIRECT,
    KERNEL
}
