package org.kvflow.core.config;

import org.kvflow.core.json.WireEnum;

/** When a device node is backed up to host (contract §11.2). */
public enum WritePolicy implements WireEnum {
    WRITE_THROUGH,
    WRITE_THROUGH_SELECTIVE,
    WRITE_BACK
}
