package org.kvflow.core.config;

import org.kvflow.core.json.WireEnum;

/** PD disaggregation role of this server (contract §10.2). */
public enum DisaggregationMode implements WireEnum {
    NULL,
    PREFILL,
    DECODE
}
