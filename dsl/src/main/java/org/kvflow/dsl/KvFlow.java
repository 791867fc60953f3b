package org.kvflow.dsl;

import org.kvflow.core.config.CpSharedKvConfig;

/** Where a kvflow pipeline starts: {@code KvFlow.prefill(config).admit(…)…build()}. */
public final class KvFlow {
    private KvFlow() {}

    /**
     * An empty prefill flow over {@code config}.
     *
     * @param config the CP shared-KV settings (contract §10), validated at {@code build()}
     * @return a flow with no stages yet, on the {@code java} device
     */
    public static PrefillFlow prefill(CpSharedKvConfig config) {
        return PrefillFlow.start(config);
    }
}
