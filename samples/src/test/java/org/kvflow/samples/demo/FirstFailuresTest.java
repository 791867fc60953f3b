package org.kvflow.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;

/** The demo keeps its first failures with the request and the reason, and no more than five. */
class FirstFailuresTest {
    @Test
    void theFirstFiveFailuresAreKeptInOrderEachWithItsRequestAndReason() {
        FirstFailures failures = new FirstFailures();
        for (int i = 0; i < 7; i++) {
            failures.add(new PrefillResult.Failed(new PrefillRequest("r" + i, new int[] {1, 2}, 1),
                    new IllegalStateException("decode pool full at request r" + i + "\nsecond line")));
        }
        assertThat(failures.lines()).containsExactly("r0: IllegalStateException: decode pool full at request r0",
                "r1: IllegalStateException: decode pool full at request r1", "r2: IllegalStateException: decode pool full at request r2",
                "r3: IllegalStateException: decode pool full at request r3", "r4: IllegalStateException: decode pool full at request r4");
    }
}
