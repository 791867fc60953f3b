package org.kvflow.operators.transfer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.transfer.PageRun;

/** contract §8 and §15 items 26–30, 32. */
class TransferPlannerTest {
    private static final int[] P_8_TO_15 = IntStream.rangeClosed(8, 15).toArray();

    @Test
    void ownerFilteringPairsByLogicalPosition() {
        OwnershipMap cp4 = new OwnershipMap(4, 64);
        long[] d = {40, 41, 42, 43, 44, 45, 46, 47};
        assertThat(TransferPlanner.plan(1, cp4, P_8_TO_15, d, 0, 8, true).pairs())
                .containsExactly(new PagePair(1, 2, 41), new PagePair(5, 3, 45));
        assertThat(TransferPlanner.plan(0, cp4, P_8_TO_15, d, 0, 8, true).pairs())
                .containsExactly(new PagePair(0, 2, 40), new PagePair(4, 3, 44));
    }

    @Test
    void rankWithoutOwnedPagesSendsNothingButCompletes() {
        List<RankSendPlan> plans = TransferPlanner.planAll(new OwnershipMap(4, 64), new int[] {5, 6, 7}, new long[] {40, 41, 42}, 0, 3, true);
        assertThat(plans.get(0).pairs()).isEmpty();
        assertThat(plans.get(0).complete()).isTrue();
        assertThat(plans.get(1).pairs()).containsExactly(new PagePair(0, 1, 40));
        assertThat(plans.get(2).pairs()).containsExactly(new PagePair(1, 1, 41));
        assertThat(plans.get(3).pairs()).containsExactly(new PagePair(2, 1, 42));
    }

    @Test
    void positionsBeyondShortDecodeMetadataAreDropped() {
        // owned positions 4 and 6 (pages 80, 84 on rank 0 of cp 4 -> local 20, 21); decode list of 5 with D[4] = 30.
        int[] p = {1, 2, 3, 5, 80, 6, 84};
        long[] d = {90, 91, 92, 93, 30};
        RankSendPlan plan = TransferPlanner.plan(0, new OwnershipMap(4, 64), p, d, 0, p.length, true);
        assertThat(plan.pairs()).containsExactly(new PagePair(4, 20, 30));
    }

    @Test
    void runsBreakWhereEitherSideIsNotConsecutive() {
        assertThat(TransferPlanner.groupRuns(new long[] {10, 11, 12, 20}, new long[] {5, 6, 7, 8}))
                .containsExactly(new PageRun(10, 5, 3), new PageRun(20, 8, 1));
        assertThat(TransferPlanner.groupRuns(new long[] {1, 2, 3}, new long[] {7, 9, 10}))
                .containsExactly(new PageRun(1, 7, 1), new PageRun(2, 9, 2));
        assertThat(TransferPlanner.groupRuns(new long[0], new long[] {1})).isEmpty();
        assertThatThrownBy(() -> TransferPlanner.groupRuns(new long[] {1, 2}, new long[] {1}))
                .isInstanceOf(org.kvflow.pages.PageListMismatchException.class).hasMessage("page lists differ in length: 2 source vs 1 destination pages");
    }

    @Test
    void nonAlignedTailSendsExactlyCeilPagesNotACpGroup() {
        int[] p = {9, 10, 11}; // seqLen 130, ps 64 -> 3 pages
        long[] d = {100, 101, 102};
        int total = TransferPlanner.planAll(new OwnershipMap(8, 64), p, d, 0, 3, true).stream().mapToInt(r -> r.pairs().size()).sum();
        assertThat(total).isEqualTo(3);
    }

    @Test
    void nonCpDecodeCoversEveryPositionOnce() {
        OwnershipMap cp4 = new OwnershipMap(4, 64);
        long[] d = {13, 8, 15, 10, 9, 14, 11, 12};
        List<PagePair> all = new ArrayList<>();
        for (RankSendPlan plan : TransferPlanner.planAll(cp4, P_8_TO_15, d, 0, 8, true)) {
            for (PagePair pair : plan.pairs()) {
                assertThat(cp4.owner(P_8_TO_15[pair.pos()])).isEqualTo(plan.rank());
                assertThat(pair.srcLocal()).isEqualTo(P_8_TO_15[pair.pos()] / 4);
                assertThat(pair.dst()).isEqualTo(d[pair.pos()]);
                all.add(pair);
            }
        }
        assertThat(all).extracting(PagePair::pos).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7);
    }

    @Test
    void chunkSlicesSendOnlyFullPagesBeforeTheLastChunk() {
        assertThat(TransferPlanner.chunkPageSlice(0, 100, false, 64)).containsExactly(0, 1);
        assertThat(TransferPlanner.chunkPageSlice(100, 200, true, 64)).containsExactly(1, 4);
        assertThat(TransferPlanner.chunkPageSlice(0, 60, false, 64)).containsExactly(0, 0);
    }

    @Test
    void replicatedBaselineSlicesPositionally() {
        assertThat(TransferPlanner.replicatedSlice(10, 4, 0)).containsExactly(0, 3);
        assertThat(TransferPlanner.replicatedSlice(10, 4, 1)).containsExactly(3, 3);
        assertThat(TransferPlanner.replicatedSlice(10, 4, 3)).containsExactly(8, 2);
    }
}
