package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The connect back-off: the wait after each failure in a row is {@link ConnectBackoff#FIRST}
 * doubled per earlier failure, up to {@link ConnectBackoff#MAX}; a call during the wait is refused
 * and counted, and a success clears it. Each wait is bracketed by the clock around the failure and
 * the check, so a slow machine cannot make the test fail.
 */
class ConnectBackoffTest {
    @Test
    void aFreshBackoffLetsTheFirstAttemptThroughAndCountsNothing() {
        ConnectBackoff backoff = new ConnectBackoff();
        assertThat(backoff.waitBeforeAttempt()).isZero();
        assertThat(backoff.failedInARow()).isZero();
        assertThat(backoff.refused()).isZero();
    }

    @Test
    void eachFailureInARowDoublesTheWaitFromFiftyMillisecondsUpToTwoSeconds() {
        ConnectBackoff backoff = new ConnectBackoff();
        long[] expectedMs = {50, 100, 200, 400, 800, 1_600, 2_000, 2_000};
        for (int n = 0; n < expectedMs.length; n++) {
            long before = System.nanoTime();
            backoff.attempted(false);
            long wait = backoff.waitBeforeAttempt();
            long elapsed = System.nanoTime() - before;
            long expected = expectedMs[n] * 1_000_000L;
            assertThat(wait).as("the wait after %d failures in a row", n + 1).isLessThanOrEqualTo(expected)
                    .isGreaterThanOrEqualTo(expected - elapsed);
            assertThat(backoff.failedInARow()).isEqualTo(n + 1);
            assertThat(backoff.refused()).as("the check during the wait was refused").isEqualTo(n + 1);
        }
    }

    @Test
    void aSuccessClearsTheWaitAndTheFailuresButNotTheRefusalsCounted() {
        ConnectBackoff backoff = new ConnectBackoff();
        backoff.attempted(false);
        backoff.attempted(false);
        assertThat(backoff.waitBeforeAttempt()).isPositive();
        backoff.attempted(true);
        assertThat(backoff.waitBeforeAttempt()).isZero();
        assertThat(backoff.failedInARow()).isZero();
        assertThat(backoff.refused()).isEqualTo(1);
        long before = System.nanoTime();
        backoff.attempted(false);
        long wait = backoff.waitBeforeAttempt();
        assertThat(wait).as("the next failure starts from the first wait again")
                .isBetween(ConnectBackoff.FIRST.toNanos() - (System.nanoTime() - before), ConnectBackoff.FIRST.toNanos());
    }
}
