package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class PageListsTest {
    @Test
    void copiesWholePagesByList() {
        byte[] src = {1, 1, 2, 2, 3, 3};
        byte[] dst = new byte[6];
        PageLists.copy(src, new long[] {2, 0}, dst, new long[] {0, 2}, 2);
        assertThat(dst).containsExactly(3, 3, 0, 0, 1, 1);
    }

    @Test
    void badPageCopiesNothing() {
        byte[] dst = new byte[4];
        assertThatThrownBy(() -> PageLists.copy(new byte[] {1, 1, 2, 2}, new long[] {0, 2}, dst, new long[] {0, 1}, 2))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("source: entry 1 names page 2, outside [0, 2)");
        assertThat(dst).containsOnly(0);
        assertThatThrownBy(() -> PageLists.copy(new byte[4], new long[] {0}, dst, new long[] {-1}, 2))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("destination: entry 0 names page -1, outside [0, 2)");
        assertThatThrownBy(() -> PageLists.copy(new byte[4], new long[] {0}, dst, new long[0], 2))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("page lists differ in length: 1 vs 0");
        assertThatThrownBy(() -> PageLists.copy(new byte[4], new long[] {0}, dst, new long[] {0}, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("pageBytes must be >= 1, was 0");
        assertThat(dst).containsOnly(0);
    }
}
