package org.kvflow.core.split;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.kvflow.core.Gen;
import org.kvflow.core.SeededProperty;

/** The split of every rank partitions {@code [0, T)}, and rank sizes differ by at most 2 tokens (seeded; a failure names its seed). */
class CpSplitProperties {
    @SeededProperty
    void inSeqRangesPartitionTheTokens(long seed) {
        Gen gen = new Gen(seed);
        int cp = gen.intIn(1, 16);
        int tokens = gen.intIn(0, 300_000);
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

    @SeededProperty
    void roundRobinTokenIdsPartitionTheTokens(long seed) {
        Gen gen = new Gen(seed);
        int cp = gen.intIn(2, 16);
        int perRank = gen.intIn(1, 2_000);
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
