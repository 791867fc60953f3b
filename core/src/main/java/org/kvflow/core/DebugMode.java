package org.kvflow.core;

/**
 * CP shared-KV diagnostics (SPEC §12): on with env {@code CPSKV_DEBUG=1} or system property
 * {@code cpskv.debug=true}. Diagnostics synchronise devices and add checks on hot paths, so
 * benchmark harnesses refuse to report while it is on.
 */
public final class DebugMode {
    private DebugMode() {}

    /** Whether diagnostics are on for this JVM. */
    public static boolean enabled() {
        return "1".equals(System.getenv("CPSKV_DEBUG")) || Boolean.getBoolean("cpskv.debug");
    }

    /**
     * @throws IllegalStateException naming the switch, when diagnostics are on
     */
    public static void refuseBenchmark(String benchmark) {
        if (enabled()) {
            throw new IllegalStateException(benchmark + ": refusing to report a performance result with CP shared-KV "
                    + "diagnostics on (CPSKV_DEBUG=1 or -Dcpskv.debug=true); turn them off");
        }
    }
}
