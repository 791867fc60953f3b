package org.kvflow.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

/** The demo's report reads its counters without failing on one the run never created (every transfer refused, say). */
class DemoCountsTest {
    @Test
    void aCounterTheRunNeverCreatedCountsZeroAndAnotherLayoutsCounterIsNotRead() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        assertThat(Demo.sharedCount(registry, "kvflow.transfer.bytes")).isZero();
        registry.counter("kvflow.transfer.bytes", "layout", "replicated").increment(5);
        assertThat(Demo.sharedCount(registry, "kvflow.transfer.bytes")).isZero();
        registry.counter("kvflow.transfer.bytes", "layout", "shared").increment(7);
        assertThat(Demo.sharedCount(registry, "kvflow.transfer.bytes")).isEqualTo(7);
    }
}
