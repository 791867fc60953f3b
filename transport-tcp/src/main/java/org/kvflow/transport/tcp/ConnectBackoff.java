package org.kvflow.transport.tcp;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

/**
 * When a {@link TcpTransferBackend} may try to connect again after failed attempts: each failure
 * in a row doubles the wait from {@link #FIRST} up to {@link #MAX}, a success clears it, and a call
 * made while the wait runs fails at once (counted), so a decode side that stays down costs each
 * request one check, not one connection timeout. Thread-safe.
 */
final class ConnectBackoff {
    /** The wait after the first failed connection attempt in a row. */
    static final Duration FIRST = Duration.ofMillis(50);
    /** The longest wait between attempts. */
    static final Duration MAX = Duration.ofSeconds(2);

    private long failed;
    private long nextAttempt = Long.MIN_VALUE;
    private final AtomicLong refused = new AtomicLong();

    /** {@return the nanoseconds still to wait before the next attempt (counting the call as refused), or 0 when one may be made now} */
    synchronized long waitBeforeAttempt() {
        long wait = nextAttempt - System.nanoTime();
        if (nextAttempt != Long.MIN_VALUE && wait > 0) {
            refused.incrementAndGet();
            return wait;
        }
        return 0;
    }

    /** Notes an attempt's outcome. */
    synchronized void attempted(boolean succeeded) {
        if (succeeded) {
            failed = 0;
            nextAttempt = Long.MIN_VALUE;
            return;
        }
        failed++;
        long doubled = FIRST.toNanos() << Math.min(failed - 1, 20);
        nextAttempt = System.nanoTime() + Math.min(doubled, MAX.toNanos());
    }

    /** {@return attempts that failed in a row, 0 once one succeeds} */
    synchronized long failedInARow() {
        return failed;
    }

    /** {@return calls that failed at once because the back-off had not passed} */
    long refused() {
        return refused.get();
    }
}
