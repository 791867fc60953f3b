package org.kvflow.operators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.model.KvModel;
import org.kvflow.operators.backup.HostCacheSource;
import org.kvflow.operators.group.HostPageTier;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.RequestState;

/**
 * The pages-only host tier: the device cache's evicted pages go there, least recently used out
 * first, and a later prompt loads the pages after its device prefix from it; 2 ranks of 8 pages
 * of 16 tokens, 15 usable.
 */
class HostPageTierTest {
    private static final CpSharedKvConfig CONFIG = Workloads.sharedBsGt1(2, 16, 4, null);

    private static PrefillRequest prompt(String id, int first, int length) {
        int[] tokens = new int[length];
        Arrays.setAll(tokens, i -> first + i);
        return new PrefillRequest(id, tokens, 0);
    }

    @Test
    void pagesTheDeviceCacheEvictsAreLoadedFromTheTierByTheNextPromptThatHasThem() {
        HostPageTier tier = new HostPageTier(8);
        KvGroup group = KvGroup.builder(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16)).model(KvModel.pagesOnly()).prefixCaching(true)
                .hostCache(tier).build();
        RequestState a = group.track(prompt("a", 100, 64));
        assertThat(group.reserve(a, 64)).isTrue();
        group.allocate(a, 64);
        group.release(a, true);
        assertThat(group.cachedPages()).isEqualTo(4);

        // 13 pages of another prompt: 11 are free, so the two least recently cached of a's go
        RequestState b = group.track(prompt("b", 5_000, 208));
        assertThat(group.reserve(b, 208)).isTrue();
        group.allocate(b, 208);
        assertThat(tier.spilledPages()).isEqualTo(2);
        assertThat(group.evictedPages()).as("each spilled page was evicted").isEqualTo(2);
        assertThat(group.cachedPages()).isEqualTo(2);
        group.release(b, false);

        RequestState again = group.track(prompt("again", 100, 64));
        assertThat(group.prefixMatchTokens(again)).as("a's first page left the device cache").isZero();
        assertThat(group.hostHitTokens(again)).as("a's first two pages are in the tier").isEqualTo(32);
        assertThat(group.reserve(again, 32, 32)).isTrue();
        assertThat(group.hostTokensServed()).isEqualTo(32);
        assertThat(again.hostPages()).isEqualTo(2);
        group.allocate(again, 32);
        group.release(again, true);
        assertThat(group.leakCheck()).isEmpty();
    }

    @Test
    void theTierKeepsTheMostRecentlyUsedPagesAndCountsOnlyAnUnbrokenRun() {
        HostPageTier tier = new HostPageTier(2);
        List<byte[]> chain = PageHashChain.fullPageHashes(prompt("p", 0, 48).tokenIds(), 16);
        List<String> keys = chain.stream().map(PageHashChain::key).toList();
        // spill reaches the tier only through a group's eviction; loadable pages are read through the interface
        KvGroup group = KvGroup.builder(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(2, 16)).model(KvModel.pagesOnly()).prefixCaching(true)
                .hostCache(tier).build();
        RequestState p = group.track(prompt("p", 0, 48));
        assertThat(group.reserve(p, 48)).isTrue();
        group.allocate(p, 48);
        group.release(p, true); // its 3 pages cached on a pool of 3 usable
        RequestState q = group.track(prompt("q", 1_000, 48));
        assertThat(group.reserve(q, 48)).isTrue();
        group.allocate(q, 48); // all three of p's evicted, oldest first: the tier keeps the last two
        assertThat(tier.spilledPages()).isEqualTo(3);
        assertThat(tier.size()).isEqualTo(2);
        assertThat(keys).hasSize(3);
        assertThat(tier.loadablePages(chain, 0)).as("page 0 was pushed out").isZero();
        assertThat(tier.loadablePages(chain, 1)).isEqualTo(2);
        assertThatThrownBy(() -> tier.payload(chain.get(1), HiCachePool.KV)).isInstanceOf(IllegalStateException.class)
                .hasMessage("a host page tier holds page keys, not bytes: page " + keys.get(1));
        group.release(q, false);
    }

    @Test
    void aTierNeedsAPagesOnlyGroupWithAPrefixCacheAndRoom() {
        assertThatThrownBy(() -> new HostPageTier(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a host page tier holds at least one page, was 0");
        assertThatThrownBy(() -> KvGroup.builder(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16)).model(KvModel.pagesOnly())
                .prefixCaching(false).hostCache(new HostPageTier(4)).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a host page tier holds page keys, not bytes, and is fed by the device prefix cache: it needs a pages-only model and"
                        + " prefix caching on (a group with KV bytes loads host pages from a replayed journal)");
        HostCacheSource replayed = new HostCacheSource(new HostPageCache(1 << 20));
        assertThatThrownBy(() -> KvGroup.builder(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16)).model(KvModel.pagesOnly())
                .prefixCaching(true).hostCache(replayed).build()).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("loading host pages needs KV bytes: give the group a model that stores them");
        assertThatThrownBy(() -> KvGroup.builder(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(8, 32)).model(KvModel.pagesOnly()).build())
                .isInstanceOf(IllegalArgumentException.class).hasMessage("pool page size 32 != config page size 16");
    }
}
