package org.kvflow.core.config;

import org.kvflow.core.json.WireEnum;

/** PD transfer backend (contract §8, §10.2). Only {@code mooncake} and {@code tcp} filter owner pages and pick decode pages by logical position. */
public enum TransferBackendKind implements WireEnum {
    MOONCAKE,
    TCP,
    NIXL,
    MORI,
    ASCEND,
    FAKE
}
