package org.kvflow.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** A run names consecutive pages on both sides, and an empty one is refused. */
class PageRunTest {
    @Test
    void aRunListsItsPagesOnBothSides() {
        PageRun run = new PageRun(5, 40, 3);
        assertThat(run.src()).containsExactly(5, 6, 7);
        assertThat(run.dst()).containsExactly(40, 41, 42);
        assertThat(new PageRun(5, 40, 1).src()).as("one page is a run").containsExactly(5);
    }

    @Test
    void aRunOfNoPagesIsRefused() {
        assertThatThrownBy(() -> new PageRun(5, 40, 0)).isInstanceOf(IllegalArgumentException.class).hasMessage("a run has at least one page, was 0");
    }
}
