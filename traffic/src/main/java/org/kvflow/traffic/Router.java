package org.kvflow.traffic;

import java.util.Arrays;
import java.util.Locale;

/** How the simulated cluster's router picks a prefill instance for each request. */
public enum Router {
    /** Instances in turn. */
    ROUND_ROBIN,
    /** The instance with the least modelled work queued. */
    LEAST_LOADED,
    /**
     * The instance where the request would finish first: queued work plus the modelled prefill of
     * what its device cache does not hold (asked of the instance's real prefix cache), as
     * Mooncake's conductor weighs prefix reuse against load.
     */
    PREFIX_AWARE;

    /** {@return the name on the command line: {@code round-robin}, {@code least-loaded}, {@code prefix-aware}} */
    public String flag() {
        return name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    /**
     * The router a flag names.
     *
     * @param flag {@code round-robin}, {@code least-loaded} or {@code prefix-aware}
     * @return the router
     * @throws IllegalArgumentException naming the flag and the choices
     */
    public static Router of(String flag) {
        return Arrays.stream(values()).filter(r -> r.flag().equals(flag)).findFirst().orElseThrow(() -> new IllegalArgumentException(
                "router \"" + flag + "\" is not one of " + Arrays.stream(values()).map(Router::flag).toList()));
    }
}
