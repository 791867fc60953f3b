package org.kvflow.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class HostWarmupTest {
    @Test
    void cheapRoundsRunUntilTheCompilerThreshold() {
        AtomicInteger ran = new AtomicInteger();
        assertThat(HostWarmup.run(ran::incrementAndGet)).isEqualTo(HostWarmup.ROUNDS).isGreaterThan(5_000);
        assertThat(ran).hasValue(HostWarmup.ROUNDS);
    }

    @Test
    void slowRoundsStopAtTheTimeLimit() {
        AtomicInteger ran = new AtomicInteger();
        int rounds = HostWarmup.run(() -> {
            ran.incrementAndGet();
            try {
                Thread.sleep(300);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        assertThat(rounds).as("2 s of 300-ms rounds: at most seven start before the limit").isBetween(1, 7);
        assertThat(ran).hasValue(rounds);
    }
}
