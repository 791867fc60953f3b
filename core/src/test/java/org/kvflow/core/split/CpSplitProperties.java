package org.kvflow.core.split;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/** The split of every rank partitions {@code [0, T)}, and rank sizes differ by at most 2 tokens. */
class CpSplitProperties {
    @Property
    void inSeqRangesPartitionTheTokens(@ForAll @IntRange(min = 1, max = 16) int cp,
                                       @ForAll @IntRange(min = 0, max = 300_000) int tokens) {
        SplitPlan plan = CpSplit.inSeq(tokens, cp);
        if (!plan.cpSplit()) {
            assertThat(cp == 1 || tokens < 2 * cp).isTrue();
            return;
        }
        List<TokenRange> all = new ArrayList<>();
        long min = Long.MAX_VALUE;
        long max = 0;
        for (RankShare share : plan.shares()) {
            all.addAll(((RankShare.Ranges) share).ranges());
            min = Math.min(min, share.tokens());
            max = Math.max(max, share.tokens());
        }
        all.sort(Comparator.comparingLong(TokenRange::start));
        long next = 0;
        for (TokenRange r : all) {
            assertThat(r.start()).isEqualTo(next);
            assertThat(r.length()).isPositive();
            next = r.end();
        }
        assertThat(next).isEqualTo(tokens);
        assertThat(max - min).isLessThanOrEqualTo(2);
    }

    @Property
    void roundRobinTokenIdsPartitionTheTokens(@ForAll @IntRange(min = 2, max = 16) int cp,
                                              @ForAll @IntRange(min = 1, max = 2_000) int perRank) {
        SplitPlan plan = CpSplit.roundRobin((long) cp * perRank, cp);
        boolean[] seen = new boolean[cp * perRank];
        for (RankShare share : plan.shares()) {
            assertThat(share.tokens()).isEqualTo(perRank);
            for (long id : ((RankShare.TokenIds) share).tokenIds()) {
                assertThat(id % cp).isEqualTo(share.rank());
                assertThat(seen[(int) id]).isFalse();
                seen[(int) id] = true;
            }
        }
    }
}
