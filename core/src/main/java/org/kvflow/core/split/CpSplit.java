package org.kvflow.core.split;

import java.util.ArrayList;
import java.util.List;

/** The CP split functions of contract §5. Pure and thread-safe. */
public final class CpSplit {
    private CpSplit() {}

    /** In-seq split of one request of {@code tokens} extend tokens. */
    public static SplitPlan inSeq(long tokens, int cpSize) {
        return inSeqBatch(new long[] {tokens}, cpSize);
    }

    /**
     * In-seq split of a batch: each request is cut into {@code 2·cp} chunks of sizes {@code base +
     * (k < rem ? 1 : 0)} and rank {@code r} takes chunks {@code r} and {@code 2·cp−1−r} of every
     * request, in batch coordinates. The whole batch runs unsplit when {@code cp = 1}, when any
     * request has fewer than {@code 2·cp} tokens, or when the batch has fewer than {@code cp}.
     */
    public static SplitPlan inSeqBatch(long[] extendLens, int cpSize) {
        checkCp(cpSize);
        int n = 2 * cpSize;
        long total = 0;
        for (long len : extendLens) {
            if (len < 0) {
                throw new IllegalArgumentException("extend length must be >= 0, was " + len);
            }
            if (len / n < 1) {
                return SplitPlan.unsplit();
            }
            total += len;
        }
        if (cpSize == 1 || extendLens.length == 0 || total < cpSize) {
            return SplitPlan.unsplit();
        }
        List<List<TokenRange>> perRank = new ArrayList<>(cpSize);
        for (int r = 0; r < cpSize; r++) {
            perRank.add(new ArrayList<>());
        }
        long requestStart = 0;
        for (long len : extendLens) {
            long base = len / n;
            long rem = len % n;
            long[] starts = new long[n + 1];
            starts[0] = requestStart;
            for (int k = 0; k < n; k++) {
                starts[k + 1] = starts[k] + base + (k < rem ? 1 : 0);
            }
            for (int r = 0; r < cpSize; r++) {
                int mirror = n - 1 - r;
                perRank.get(r).add(new TokenRange(starts[r], starts[r + 1]));
                perRank.get(r).add(new TokenRange(starts[mirror], starts[mirror + 1]));
            }
            requestStart += len;
        }
        List<RankShare> shares = new ArrayList<>(cpSize);
        for (int r = 0; r < cpSize; r++) {
            shares.add(new RankShare.Ranges(r, perRank.get(r)));
        }
        return new SplitPlan(true, shares);
    }

    /**
     * Round-robin split: token {@code i} to rank {@code i mod cp}. Unsplit when {@code cp = 1},
     * {@code tokens = 0} or {@code tokens mod cp ≠ 0}.
     */
    public static SplitPlan roundRobin(long tokens, int cpSize) {
        checkCp(cpSize);
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must be >= 0, was " + tokens);
        }
        if (cpSize == 1 || tokens == 0 || tokens % cpSize != 0) {
            return SplitPlan.unsplit();
        }
        int perRank = Math.toIntExact(tokens / cpSize);
        List<RankShare> shares = new ArrayList<>(cpSize);
        for (int r = 0; r < cpSize; r++) {
            long[] ids = new long[perRank];
            for (int k = 0; k < perRank; k++) {
                ids[k] = (long) k * cpSize + r;
            }
            shares.add(new RankShare.TokenIds(r, ids));
        }
        return new SplitPlan(true, shares);
    }

    /** Dispatches on {@code mode}; {@link SplitMode#NONE} never splits. */
    public static SplitPlan split(SplitMode mode, long tokens, int cpSize) {
        return switch (mode) {
            case IN_SEQ_SPLIT -> inSeq(tokens, cpSize);
            case ROUND_ROBIN_SPLIT -> roundRobin(tokens, cpSize);
            case NONE -> SplitPlan.unsplit();
        };
    }

    private static void checkCp(int cpSize) {
        if (cpSize < 1) {
            throw new IllegalArgumentException("cpSize must be >= 1, was " + cpSize);
        }
    }
}
