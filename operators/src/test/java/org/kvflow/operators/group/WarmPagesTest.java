package org.kvflow.operators.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.IntStream;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.pages.HeapPageMemory;
import org.junit.jupiter.api.Test;

/**
 * A warm start's pages, apart from the journal that fills them: what was restored is cached, what
 * was not goes back to the pools, a prefix cached already is not allocated again, a second fill of
 * the same prompt gives its copies back, and a prompt that needs room evicts unlocked pages first.
 * Every step ends with no page unaccounted for.
 */
class WarmPagesTest {
    private static final int PS = 4;

    private static KvGroup group(HeapPageMemory memory) {
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(2).pageSize(PS).model(ModelKind.TOY_MLA).sharedKv(true).build();
        SyntheticModel toy = new SyntheticModel(new NsaDims(16, 40, 8, 24, 12), KvDtype.FP8_E4M3, 2, 3);
        return KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(4, PS)).model(toy).prefixCaching(true).memory(memory).build();
    }

    private static List<byte[]> prompt(int seed, int pages) {
        return PageHashChain.fullPageHashes(IntStream.range(0, pages * PS).map(i -> seed * 1000 + i).toArray(), PS);
    }

    @Test
    void restoredPagesAreCachedAndTheRestGoBack() {
        HeapPageMemory memory = new HeapPageMemory();
        try (KvGroup group = group(memory)) {
            int fits = (int) (group.budgetTokens() / PS);
            assertThat(fits).as("room for the prompts below").isGreaterThanOrEqualTo(6);
            List<byte[]> a = prompt(1, 4);
            KvGroup.WarmPages first = group.warmPages(a);
            assertThat(first.cached()).isZero();
            assertThat(first.pages()).hasSize(4).doesNotHaveDuplicates();
            assertThat(group.cacheRestored(a, first, 2)).as("the journal held the first two").isEqualTo(2);
            assertThat(group.cachedPages()).isEqualTo(2);
            assertThat(group.leakCheck()).as("the two not restored went back").isEmpty();

            KvGroup.WarmPages second = group.warmPages(a);
            assertThat(second.cached()).as("the cached prefix is not allocated again").isEqualTo(2);
            assertThat(second.pages()).hasSize(2);
            assertThat(group.cacheRestored(a, second, 2)).isEqualTo(4);
            KvGroup.WarmPages third = group.warmPages(a);
            assertThat(third.cached()).isEqualTo(4);
            assertThat(third.pages()).isEmpty();
            assertThat(group.cacheRestored(a, third, 0)).isEqualTo(4);
            assertThat(group.cachedPages()).isEqualTo(4);
            assertThat(group.leakCheck()).isEmpty();
        }
    }

    @Test
    void twoFillsOfOnePromptKeepTheFirstAndGiveTheSecondsPagesBack() {
        HeapPageMemory memory = new HeapPageMemory();
        try (KvGroup group = group(memory)) {
            List<byte[]> a = prompt(2, 3);
            KvGroup.WarmPages one = group.warmPages(a);
            KvGroup.WarmPages two = group.warmPages(a); // a second reader of the same prompt before the first one finished
            long both = group.physicalPagesInUse();
            assertThat(group.cacheRestored(a, one, 3)).isEqualTo(3);
            assertThat(group.cacheRestored(a, two, 3)).as("the prefix is whole, from the first fill").isEqualTo(3);
            assertThat(group.cachedPages()).isEqualTo(3);
            assertThat(group.physicalPagesInUse()).as("the second fill's copies freed").isEqualTo(both / 2);
            assertThat(group.leakCheck()).isEmpty();
        }
    }

    @Test
    void aPromptThatNeedsRoomEvictsUnlockedPagesAndOneLongerThanThePoolsGetsWhatFits() {
        HeapPageMemory memory = new HeapPageMemory();
        try (KvGroup group = group(memory)) {
            int fits = (int) (group.budgetTokens() / PS);
            List<byte[]> a = prompt(3, 4);
            group.cacheRestored(a, group.warmPages(a), 4);
            List<byte[]> b = prompt(4, fits - 1);
            KvGroup.WarmPages warmB = group.warmPages(b);
            assertThat(warmB.pages()).as("room made for all of it").hasSize(fits - 1);
            assertThat(group.evictedPages()).as("exactly as many as were short").isEqualTo(3);
            assertThat(group.cachedPages()).isEqualTo(1);
            group.cacheRestored(b, warmB, fits - 1);
            assertThat(group.cachedPages()).isEqualTo(fits);

            List<byte[]> c = prompt(5, fits + 2);
            KvGroup.WarmPages warmC = group.warmPages(c);
            assertThat(warmC.cached()).isZero();
            assertThat(warmC.pages()).as("its first pages, as many as the pools hold").hasSize(fits);
            assertThat(group.evictedPages()).isEqualTo(3 + fits);
            assertThat(group.cacheRestored(c, warmC, fits)).isEqualTo(fits);
            assertThat(group.leakCheck()).isEmpty();
        }
    }
}
