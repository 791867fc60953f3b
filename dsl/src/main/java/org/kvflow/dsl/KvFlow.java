package org.kvflow.dsl;

import org.kvflow.core.config.CpSharedKvConfig;

/** Where a kvflow pipeline starts: {@code KvFlow.prefill(config).admit(…)…build()}. */
public final class KvFlow {
    private KvFlow() {}

    /** An empty prefill flow over {@code config} (SPEC §10 fields; validated at {@code build()}). */
    public static PrefillFlow prefill(CpSharedKvConfig config) {
        return PrefillFlow.start(config);
    }
}
