package org.kvflow.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The soak, small: runs cancelled at random and decode servers restarted under load leave no page, no decode session and no wrong KV behind. */
class SoakTest {
    @Test
    void aSmallSoakLeavesNothingBehind() {
        Soak.Report report = new Soak(6_000, 3, 7, Duration.ofMillis(1_500)).run();
        assertThat(report.requests()).isEqualTo(6_000);
        assertThat(report.pagesNotReturned()).as("pages not back in any pool").isZero();
        assertThat(report.decodeSessionsLeft()).as("decode sessions left").isZero();
        assertThat(report.wrongKv()).as("requests whose decode KV differs from a replicated run's").isZero();
        assertThat(report.kvChecked()).as("requests whose KV was checked").isPositive();
        assertThat(report.restarts()).as("decode restarts under load").isPositive();
        assertThat(report.completedAfterRestart()).isPositive();
        assertThat(report.outcomes()).as("every failure a typed transfer error; no run failed as a whole")
                .allSatisfy((outcome, count) -> assertThat(outcome).isIn("completed", "failed", "not_delivered", "cancelled_undelivered", "undelivered"));
        assertThat(report.outcomes().getOrDefault("failed", 0L)).isEqualTo(report.failedWithTypedErrorDuringFaults());
    }
}
