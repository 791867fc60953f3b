package org.kvflow.traffic;

import java.util.Objects;

/**
 * The simulated cluster: prefill instances (each of the replay's CP size and per-rank pool), decode
 * instances, the router, and the PD link.
 *
 * @param prefillInstances  prefill instances
 * @param decodeInstances   decode instances, taken in turn; each receives over its own link
 * @param router            how a request picks its prefill instance
 * @param pdBytesPerSecond  each decode instance's PD link, bytes a second; 0 leaves the transfer out
 * @param kvBytesPerToken   KV bytes of one token over all layers, sent to decode for every prompt token
 */
public record ClusterSpec(int prefillInstances, int decodeInstances, Router router, double pdBytesPerSecond, long kvBytesPerToken) {
    /**
     * Checks the values.
     *
     * @throws IllegalArgumentException naming a count below 1 or a negative bandwidth or size
     */
    public ClusterSpec {
        Objects.requireNonNull(router, "router");
        if (prefillInstances < 1 || decodeInstances < 1) {
            throw new IllegalArgumentException("prefill instances " + prefillInstances + " and decode instances " + decodeInstances + " must be >= 1");
        }
        if (!(pdBytesPerSecond >= 0) || Double.isInfinite(pdBytesPerSecond) || kvBytesPerToken < 0) {
            throw new IllegalArgumentException("PD link " + pdBytesPerSecond + " B/s and " + kvBytesPerToken + " KV bytes a token must be finite and >= 0");
        }
    }

    /**
     * The same cluster, another size.
     *
     * @param n prefill instances
     * @return this cluster with {@code n} prefill instances
     */
    public ClusterSpec withPrefillInstances(int n) {
        return new ClusterSpec(n, decodeInstances, router, pdBytesPerSecond, kvBytesPerToken);
    }
}
