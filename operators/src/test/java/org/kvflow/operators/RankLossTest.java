package org.kvflow.operators;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.stage.BatchStage;
import org.kvflow.operators.stage.StageRunner;
import org.kvflow.pages.RankPools;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.RequestState;

/**
 * A rank's pool lost under a running group (as when a rank process dies): the requests holding a
 * page stored there fail with the loss before their next stage runs, their pages come back, the
 * others go on, and once the rank is replaced the group's stores name the fresh pool.
 */
class RankLossTest {
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 2);

    /** Pools of this process whose loss and replacement the test announces. */
    private static final class AnnouncedPools implements RankPools {
        final List<Listener> listeners = new ArrayList<>();

        @Override
        public List<PageStore> open(PageMemory memory, KvLayout kv, int ranks, int pageSize, int pagesPerRank) {
            return RankPools.inProcess().open(memory, kv, ranks, pageSize, pagesPerRank);
        }

        @Override
        public void listen(Listener listener) {
            listeners.add(listener);
        }

        @Override
        public void close() {
            // the stores are closed by their holder
        }
    }

    @Test
    void requestsHoldingALostRanksPagesFailBeforeTheirNextStageAndTheRestGoOn() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 8, null);
        AnnouncedPools pools = new AnnouncedPools();
        try (KvGroup group = KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(32, 16)).model(MODEL).rankPools(pools).build()) {
            // one page each: r0's lands on rank 0, r1's on rank 1 (pages go to owners round robin by page id)
            List<PrefillRequest> requests = List.of(new PrefillRequest("r0", new int[] {1, 2, 3}, 1), new PrefillRequest("r1", new int[] {4, 5}, 1),
                    new PrefillRequest("long", new int[100], 1));
            PrefillBatch batch = Workloads.owned(group, requests);
            int lostRank = group.stores().holder(batch.entries().get(1).state().pageTable()[0]);
            assertThat(group.stores().holder(batch.entries().get(0).state().pageTable()[0])).as("r0 holds nothing on the lost rank").isNotEqualTo(lostRank);
            RuntimeException loss = new IllegalStateException("rank " + lostRank + " went away");
            pools.listeners.forEach(l -> l.lost(lostRank, loss));

            List<String> seen = new ArrayList<>();
            PrefillBatch after = new StageRunner(group, "kvflow.test").run((BatchStage) b -> {
                b.active().forEach(e -> seen.add(e.id()));
                return b;
            }, batch);
            assertThat(seen).as("the stage sees only requests whose pages are all there").containsExactly("r0");
            assertThat(after.entries()).extracting(PrefillBatch.Entry::id, PrefillBatch.Entry::failure)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple("r0", null), org.assertj.core.groups.Tuple.tuple("r1", loss),
                            org.assertj.core.groups.Tuple.tuple("long", loss));
            assertThat(after.entries().subList(1, 3)).allSatisfy(e -> assertThat(e.state().isReleased()).isTrue());
            assertThat(group.physicalPagesInUse()).as("only r0's page is held").isEqualTo(1);

            PageStore fresh = PageStore.onHeap("fresh rank " + lostRank, MODEL.layout(), 16, 32);
            PageStore old = group.stores().rank(lostRank);
            pools.listeners.forEach(l -> l.replaced(lostRank, fresh));
            assertThat(group.stores().rank(lostRank)).isSameAs(fresh).isNotSameAs(old);
            old.close();
            group.release(after.entries().getFirst().state(), false);
            assertThat(group.leakCheck()).isEmpty();
            assertThat(Arrays.stream(new int[] {0, 1, 2, 3}).map(group::physicalPagesOnRank).sum()).isZero();
        }
    }

    @Test
    void cachedPagesOnALostRankAreNeverReusedAndComeBackOnceNoRequestLocksThem() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(4, 16, 8, null);
        AnnouncedPools pools = new AnnouncedPools();
        try (KvGroup group = KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(32, 16)).model(MODEL).rankPools(pools)
                .prefixCaching(true).build()) {
            int[] prompt = java.util.stream.IntStream.range(0, 65).map(t -> 7 * t + 1).toArray(); // four full pages, then one token
            PrefillBatch first = Workloads.written(group, List.of(new PrefillRequest("first", prompt, 1)));
            int[] cached = Arrays.copyOf(first.entries().getFirst().state().pageTable(), 4);
            group.release(first.entries().getFirst().state(), true);
            int[] other = java.util.stream.IntStream.range(0, 33).map(t -> 5 * t + 2).toArray(); // two full pages of another prompt
            PrefillBatch second = Workloads.written(group, List.of(new PrefillRequest("other", other, 1)));
            int[] otherPages = Arrays.copyOf(second.entries().getFirst().state().pageTable(), 2);
            group.release(second.entries().getFirst().state(), true);
            assertThat(group.cachedPages()).isEqualTo(6);

            RequestState locker = group.track(new PrefillRequest("reusing", prompt, 1));
            assertThat(group.reserve(locker, 0, 1)).as("the cached prefix locked, its last token to compute").isTrue();
            group.allocate(locker, 1);
            assertThat(locker.pageTable()).hasSize(5).startsWith(cached);
            int lostRank = group.stores().holder(otherPages[0]);
            long lostOfPrompt = Arrays.stream(cached).filter(p -> group.stores().holder(p) == lostRank).count();
            long lostOfOther = Arrays.stream(otherPages).filter(p -> group.stores().holder(p) == lostRank).count();
            assertThat(lostOfPrompt).as("the locked prefix has a page there too (four pages on four ranks)").isPositive();
            int firstLost = (int) java.util.stream.IntStream.range(0, 4).filter(i -> group.stores().holder(cached[i]) == lostRank).findFirst().orElseThrow();
            RuntimeException loss = new IllegalStateException("rank " + lostRank + " went away");
            pools.listeners.forEach(l -> l.lost(lostRank, loss));
            assertThat(locker.lost()).isSameAs(loss);
            assertThat(group.cachedPages()).as("unlocked lost pages forgotten at once; locked ones until unlocked")
                    .isEqualTo(6 - (int) lostOfOther);

            RequestState probe = group.track(new PrefillRequest("probe", prompt, 1));
            assertThat(group.prefixMatchTokens(probe)).as("reuse stops before the first lost page").isEqualTo(firstLost * 16);
            group.release(probe, false);
            group.release(locker, false);
            assertThat(group.cachedPages()).as("the lost pages the request held went back when it let go").isEqualTo(6 - (int) (lostOfPrompt + lostOfOther));
            assertThat(group.leakCheck()).isEmpty();
            assertThat(group.physicalPagesOnRank(lostRank)).as("nothing of the lost rank held any more").isZero();
        }
    }

    @Test
    void aRankBeingRestartedIsSeenUntilItIsBackOrGivenUpAndEachEndWakesTheWaiters() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(2, 16, 8, null);
        AnnouncedPools pools = new AnnouncedPools();
        try (KvGroup group = KvGroup.builder(config, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16)).model(MODEL).rankPools(pools).build()) {
            java.util.concurrent.atomic.AtomicInteger woken = new java.util.concurrent.atomic.AtomicInteger();
            group.onPagesFreed(woken::incrementAndGet);
            assertThat(group.rankRestarting()).isFalse();
            RuntimeException loss = new IllegalStateException("rank 1 went away");
            pools.listeners.forEach(l -> l.lost(1, loss));
            assertThat(group.rankRestarting()).as("lost, and nobody restarts it").isFalse();
            pools.listeners.forEach(l -> l.restarting(1));
            assertThat(group.rankRestarting()).isTrue();
            int before = woken.get();
            pools.listeners.forEach(l -> l.replaced(1, PageStore.onHeap("fresh rank 1", MODEL.layout(), 16, 8)));
            assertThat(group.rankRestarting()).isFalse();
            assertThat(woken.get() - before).as("the restart's end wakes admission").isEqualTo(1);
            pools.listeners.forEach(l -> l.lost(1, loss));
            pools.listeners.forEach(l -> l.restarting(1));
            before = woken.get();
            pools.listeners.forEach(l -> l.gaveUp(1, new IllegalStateException("no JVM")));
            assertThat(group.rankRestarting()).as("given up: nothing to wait for").isFalse();
            assertThat(woken.get() - before).isEqualTo(1);
        }
    }
}
