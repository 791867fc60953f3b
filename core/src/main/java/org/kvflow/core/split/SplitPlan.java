package org.kvflow.core.split;

import java.util.List;

/**
 * The outcome of a CP split: either the batch is split ({@code shares} has one entry per rank,
 * ascending) or it runs unsplit on every rank ({@code shares} empty).
 */
public record SplitPlan(boolean cpSplit, List<RankShare> shares) {
    private static final SplitPlan UNSPLIT = new SplitPlan(false, List.of());

    public SplitPlan {
        shares = List.copyOf(shares);
        if (cpSplit == shares.isEmpty()) {
            throw new IllegalArgumentException("a split plan has shares exactly when it is split");
        }
    }

    /** Every rank computes every token. */
    public static SplitPlan unsplit() {
        return UNSPLIT;
    }
}
