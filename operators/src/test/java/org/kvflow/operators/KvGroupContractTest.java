package org.kvflow.operators;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.model.KvModel;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.group.KvGroup;

/**
 * The page accounting of a group with a prefix cache, page by page: what a reservation, an
 * allocation, a release into the cache and an eviction do to the budget, the pages in use, the
 * cache and the listeners; 2 ranks of 8 pages of 16 tokens, 15 usable.
 */
class KvGroupContractTest {
    private static final CpSharedKvConfig CONFIG = Workloads.sharedBsGt1(2, 16, 4, null);

    private static KvGroup group() {
        return KvGroup.create(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), true);
    }

    private static PrefillRequest prompt(String id, int length) {
        int[] tokens = new int[length];
        Arrays.setAll(tokens, i -> 100 + i);
        return new PrefillRequest(id, tokens, 0);
    }

    /** Reserves and allocates a whole request in one chunk. */
    private static RequestState run(KvGroup group, PrefillRequest request) {
        RequestState state = group.track(request);
        long fresh = request.seqLen() - group.prefixMatchTokens(state);
        assertThat(group.reserve(state, fresh)).as("reserve %s", request.id()).isTrue();
        group.allocate(state, fresh);
        return state;
    }

    @Test
    void fullPagesGoToTheCacheAndAreReusedByTheNextPrompt() {
        KvGroup group = group();
        AtomicInteger freed = new AtomicInteger();
        group.onPagesFreed(freed::incrementAndGet);
        assertThat(group.budgetTokens()).isEqualTo(15 * 16);

        RequestState a = group.track(prompt("a", 64));
        assertThat(group.reserve(a, 64)).isTrue();
        assertThat(group.reservedPages()).isEqualTo(4);
        assertThat(group.budgetTokens()).isEqualTo(11 * 16);
        group.allocate(a, 64);
        assertThat(group.reservedPages()).isZero();
        assertThat(group.physicalPagesInUse()).isEqualTo(4);
        assertThat(group.physicalPagesOnRank(0) + group.physicalPagesOnRank(1)).isEqualTo(4);
        assertThat(group.peakPhysicalPages()).isEqualTo(4);

        group.release(a, true);
        assertThat(group.cachedPages()).as("64 tokens fill exactly 4 pages, all cached").isEqualTo(4);
        assertThat(group.physicalPagesInUse()).as("cached pages stay in use").isEqualTo(4);
        assertThat(group.budgetTokens()).as("11 free + 4 evictable").isEqualTo(15 * 16);
        assertThat(freed).hasValue(1);
        assertThat(group.leakCheck()).isEmpty();

        RequestState same = group.track(prompt("same", 64));
        assertThat(group.prefixMatchTokens(same)).as("one token is always left to compute: 3 pages").isEqualTo(48);
        RequestState longer = group.track(prompt("longer", 80));
        assertThat(group.prefixMatchTokens(longer)).isEqualTo(64);
        assertThat(group.reserve(longer, 16)).isTrue();
        assertThat(longer.prefixTokens()).isEqualTo(64);
        assertThat(group.reservedPages()).isEqualTo(1);
        assertThat(group.budgetTokens()).as("the 4 cached pages are locked: 11 free - 1 reserved").isEqualTo(10 * 16);
        assertThat(group.allocate(longer, 16)).hasSize(1);
        assertThat(longer.filledTokens()).isEqualTo(80);
        assertThat(group.prefixMatchTokens(longer)).as("a started request matches nothing").isZero();
        assertThat(group.physicalPagesInUse()).isEqualTo(5);

        group.release(longer, false);
        assertThat(group.cachedPages()).as("the prefix is unlocked, its own page freed").isEqualTo(4);
        assertThat(group.physicalPagesInUse()).isEqualTo(4);
        assertThat(group.budgetTokens()).isEqualTo(15 * 16);
        group.release(same, false);
        assertThat(group.liveRequests()).isZero();

        group.evictCache();
        assertThat(group.cachedPages()).isZero();
        assertThat(group.physicalPagesInUse()).isZero();
        assertThat(freed).as("three releases and the eviction").hasValue(4);
        assertThat(group.leakCheck()).isEmpty();
    }

    @Test
    void aTailPageIsFreedNotCachedAndAFailedReservationUnlocksThePrefix() {
        KvGroup group = group();
        group.release(run(group, prompt("a", 70)), true);
        assertThat(group.cachedPages()).as("4 full pages; the tail of 6 tokens is freed").isEqualTo(4);
        assertThat(group.physicalPagesInUse()).isEqualTo(4);

        RequestState hog = run(group, new PrefillRequest("hog", new int[11 * 16], 0));
        assertThat(group.physicalPagesInUse()).isEqualTo(15);
        RequestState b = group.track(prompt("b", 96));
        assertThat(group.prefixMatchTokens(b)).isEqualTo(64);
        assertThat(group.reserve(b, 32)).as("2 more pages, 0 free, 4 evictable but b's own prefix").isFalse();
        assertThat(group.budgetTokens()).as("the refused reservation left the prefix unlocked").isEqualTo(4 * 16);
        assertThat(group.reservedPages()).isZero();

        RequestState c = group.track(new PrefillRequest("c", new int[48], 0));
        assertThat(group.reserve(c, 48)).isTrue();
        assertThat(group.allocate(c, 48)).as("allocation evicts 3 cached pages").hasSize(3);
        assertThat(group.cachedPages()).isEqualTo(1);
        assertThat(group.physicalPagesInUse()).isEqualTo(15);
        group.releaseAll();
        assertThat(group.liveRequests()).isZero();
        assertThat(group.physicalPagesInUse()).as("hog and c freed, b held nothing, 1 cached page").isEqualTo(1);
        assertThat(hog.table().pageCount()).isEqualTo(11);
        assertThat(group.leakCheck()).isEmpty();
    }

    @Test
    void allocatingMoreThanWasReservedIsRefused() {
        KvGroup group = group();
        RequestState a = group.track(prompt("a", 64));
        assertThat(group.reserve(a, 16)).isTrue();
        assertThatThrownBy(() -> group.allocate(a, 64)).isInstanceOf(ReservationException.class)
                .hasMessage("request a allocates 4 pages with 1 reserved");
        assertThatThrownBy(() -> group.reserve(group.track(prompt("h", 64)), 8, 16)).isInstanceOf(ReservationException.class)
                .hasMessage("request h: a host hit is whole pages on the first chunk, was 8");
    }
}
