package org.kvflow.core;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * CP shared-KV diagnostics (contract §12): on with env {@code CPSKV_DEBUG=1} or system property
 * {@code cpskv.debug=true}. Diagnostics synchronise devices and add checks on hot paths (owner
 * writes, the full view against a replicated reference, page groups where the fast path skips
 * them), so benchmark harnesses refuse to report while it is on. {@link #check} runs one check and
 * counts it; the count is reported by {@code kvflow demo --json}.
 */
public final class DebugMode {
    private static final AtomicLong CHECKS = new AtomicLong();

    private DebugMode() {}

    /**
     * When diagnostics are on, evaluates {@code holds} and counts the check; a check that does not
     * hold throws. When they are off, evaluates nothing.
     *
     * @throws DiagnosticCheckException with {@code failure}'s message when the check fails
     */
    public static void check(BooleanSupplier holds, Supplier<String> failure) {
        if (!enabled()) {
            return;
        }
        CHECKS.incrementAndGet();
        if (!holds.getAsBoolean()) {
            throw new DiagnosticCheckException(failure.get());
        }
    }

    /** Diagnostic checks run in this JVM so far. */
    public static long checksRun() {
        return CHECKS.get();
    }

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
