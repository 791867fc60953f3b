package org.kvflow.operators;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class PrefixCacheTest {
    @Test
    void matchStopsAtTheFirstMissingPageAndRespectsTheLimit() {
        PrefixCache cache = new PrefixCache();
        cache.insert("a", 1);
        cache.insert("b", 2);
        cache.insert("d", 4);
        assertThat(cache.match(List.of("a", "b", "c", "d"), 9)).containsExactly(1, 2);
        assertThat(cache.match(List.of("a", "b"), 1)).containsExactly(1);
        assertThat(cache.match(List.of("x", "a"), 9)).isEmpty();
    }

    @Test
    void lockedPagesAreNotEvictedAndUnlockMakesThemMostRecent() {
        PrefixCache cache = new PrefixCache();
        cache.insert("a", 1);
        cache.insert("b", 2);
        cache.insert("c", 3);
        cache.lock(List.of("a"), 1);
        assertThat(cache.evictablePages()).isEqualTo(2);
        assertThat(cache.evict(1)).containsExactly(2);
        cache.unlock(List.of("a"), 1);
        assertThat(cache.evict(5)).containsExactly(3, 1);
        assertThat(cache.size()).isZero();
    }

    @Test
    void duplicateKeysAreNotInserted() {
        PrefixCache cache = new PrefixCache();
        assertThat(cache.insert("a", 1)).isTrue();
        assertThat(cache.insert("a", 7)).isFalse();
        assertThat(cache.pages()).containsExactly(1);
    }
}
