package org.kvflow.operators.group;

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
        List<String> told = new java.util.ArrayList<>();
        assertThat(cache.evict(1, told::add)).containsExactly(2);
        cache.unlock(List.of("a"), 1);
        assertThat(cache.evict(5, told::add)).containsExactly(3, 1);
        assertThat(told).as("each evicted page's key, in eviction order").containsExactly("b", "c", "a");
        assertThat(cache.size()).isZero();
    }

    @Test
    void duplicateKeysAreNotInserted() {
        PrefixCache cache = new PrefixCache();
        assertThat(cache.insert("a", 1)).isTrue();
        assertThat(cache.insert("a", 7)).isFalse();
        assertThat(cache.pages()).containsExactly(1);
    }

    @Test
    void forgottenPagesAreNeverMatchedAgainAndLockedOnesComeBackWithTheirLastUnlock() {
        PrefixCache cache = new PrefixCache();
        cache.insert("a", 1);
        cache.insert("b", 2);
        cache.insert("c", 3);
        cache.insert("d", 4);
        cache.lock(List.of("a", "b"), 2);
        cache.lock(List.of("a", "b"), 2);
        assertThat(cache.forget(page -> page % 2 == 0)).as("unlocked and lost: freed now").containsExactly(4);
        assertThat(cache.match(List.of("a", "b", "c"), 9)).as("the chain stops at the forgotten page").containsExactly(1);
        assertThat(cache.match(List.of("c"), 9)).containsExactly(3);
        assertThat(cache.insert("b", 9)).as("a forgotten key is not cached again while it is locked").isFalse();
        assertThat(cache.evictablePages()).isEqualTo(1);
        assertThat(cache.unlock(List.of("a", "b"), 2)).as("a lock remains").isEmpty();
        assertThat(cache.unlock(List.of("a", "b"), 2)).as("the last lock frees the forgotten page").containsExactly(2);
        assertThat(cache.pages()).containsExactlyInAnyOrder(1, 3);
        assertThat(cache.evict(9, key -> { })).containsExactly(3, 1);
        assertThat(cache.insert("b", 9)).isTrue();
    }
}
