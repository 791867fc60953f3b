package org.kvflow.dsl;

import org.kvflow.core.split.SplitMode;

/** Factories for the split stage. */
public final class Split {
    private Split() {}

    /**
     * In-sequence split (contract §5.1): rank {@code r} takes chunks {@code r} and {@code 2·cp−1−r}.
     *
     * @return the stage
     */
    public static SplitSpec inSeq() {
        return new SplitSpec(SplitMode.IN_SEQ_SPLIT);
    }

    /**
     * Round-robin split (contract §5.2): token {@code t} to rank {@code t mod cp}.
     *
     * @return the stage
     */
    public static SplitSpec roundRobin() {
        return new SplitSpec(SplitMode.ROUND_ROBIN_SPLIT);
    }

    /**
     * No split: prefill CP switched off, every rank sees the whole batch.
     *
     * @return the stage
     */
    public static SplitSpec none() {
        return new SplitSpec(SplitMode.NONE);
    }
}
