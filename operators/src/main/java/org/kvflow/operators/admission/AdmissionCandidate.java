package org.kvflow.operators.admission;

import java.util.Objects;

/**
 * A request as admission sees it (contract §6.2): token counts only, never bytes.
 *
 * @param name       unique request name
 * @param extendLen  tokens to compute, device prefix hit already excluded (≥ 1)
 * @param hostHitLen leading extend tokens found in the host cache (a page multiple, {@code < extendLen})
 * @param maxNew     tokens the request may still generate (decode reservation)
 */
public record AdmissionCandidate(String name, long extendLen, long hostHitLen, long maxNew) {
    /** Checks the counts. */
    public AdmissionCandidate {
        Objects.requireNonNull(name, "name");
        if (extendLen < 1) {
            throw new IllegalArgumentException(name + ": extendLen must be >= 1, was " + extendLen);
        }
        if (hostHitLen < 0 || hostHitLen >= extendLen) {
            throw new IllegalArgumentException(name + ": hostHitLen must be in [0, extendLen), was " + hostHitLen);
        }
        if (maxNew < 0) {
            throw new IllegalArgumentException(name + ": maxNew must be >= 0, was " + maxNew);
        }
    }
}
