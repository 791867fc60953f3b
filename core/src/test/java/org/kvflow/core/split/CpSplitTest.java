package org.kvflow.core.split;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** contract §5 and §15 items 7–10. */
class CpSplitTest {
    @Test
    void inSeqTwentyTokensOnFourRanks() {
        SplitPlan plan = CpSplit.inSeq(20, 4);
        assertThat(plan.cpSplit()).isTrue();
        assertThat(ranges(plan, 0)).containsExactly(new TokenRange(0, 3), new TokenRange(18, 20));
        assertThat(ranges(plan, 1)).containsExactly(new TokenRange(3, 6), new TokenRange(16, 18));
        assertThat(ranges(plan, 2)).containsExactly(new TokenRange(6, 9), new TokenRange(14, 16));
        assertThat(ranges(plan, 3)).containsExactly(new TokenRange(9, 12), new TokenRange(12, 14));
        assertThat(plan.shares()).allSatisfy(s -> assertThat(s.tokens()).isEqualTo(5));
    }

    @Test
    void inSeqThousandTokensOnEightRanksNeverMergesAdjacentChunks() {
        SplitPlan plan = CpSplit.inSeq(1000, 8);
        assertThat(ranges(plan, 0)).containsExactly(new TokenRange(0, 63), new TokenRange(938, 1000));
        assertThat(ranges(plan, 7)).containsExactly(new TokenRange(441, 504), new TokenRange(504, 566));
        assertThat(plan.shares()).allSatisfy(s -> assertThat(s.tokens()).isEqualTo(125));
    }

    @Test
    void fewerThanTwoTokensPerChunkRunsUnsplit() {
        assertThat(CpSplit.inSeq(7, 4).cpSplit()).isFalse();
        assertThat(CpSplit.inSeq(8, 4).cpSplit()).isTrue();
        assertThat(CpSplit.inSeq(100, 1).cpSplit()).isFalse();
    }

    @Test
    void oneShortRequestKeepsTheWholeBatchUnsplit() {
        assertThat(CpSplit.inSeqBatch(new long[] {100, 5}, 4).cpSplit()).isFalse();
    }

    @Test
    void batchConcatenatesEachRequestsChunksInBatchCoordinates() {
        SplitPlan plan = CpSplit.inSeqBatch(new long[] {8, 16}, 2);
        assertThat(ranges(plan, 0)).containsExactly(new TokenRange(0, 2), new TokenRange(6, 8),
                new TokenRange(8, 12), new TokenRange(20, 24));
        assertThat(ranges(plan, 1)).containsExactly(new TokenRange(2, 4), new TokenRange(4, 6),
                new TokenRange(12, 16), new TokenRange(16, 20));
    }

    @Test
    void roundRobinTwelveTokensOnFourRanks() {
        SplitPlan plan = CpSplit.roundRobin(12, 4);
        assertThat(((RankShare.TokenIds) plan.shares().get(1)).tokenIds()).containsExactly(1, 5, 9);
        assertThat(CpSplit.roundRobin(13, 4).cpSplit()).isFalse();
        assertThat(CpSplit.roundRobin(0, 4).cpSplit()).isFalse();
        assertThat(CpSplit.roundRobin(12, 1).cpSplit()).isFalse();
    }

    @Test
    void modeNoneNeverSplits() {
        assertThat(CpSplit.split(SplitMode.NONE, 1000, 8)).isEqualTo(SplitPlan.unsplit());
    }

    private static List<TokenRange> ranges(SplitPlan plan, int rank) {
        return ((RankShare.Ranges) plan.shares().get(rank)).ranges();
    }

    @Test
    void aRangeThatEndsBeforeItStartsIsRefused() {
        assertThatThrownBy(() -> new TokenRange(5, 3)).isInstanceOf(IllegalArgumentException.class).hasMessage("bad token range [5, 3)");
        assertThatThrownBy(() -> new TokenRange(-1, 3)).isInstanceOf(IllegalArgumentException.class).hasMessage("bad token range [-1, 3)");
    }
}
