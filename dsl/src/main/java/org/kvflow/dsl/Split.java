package org.kvflow.dsl;

import org.kvflow.core.split.SplitMode;

/** Factories for the split stage. */
public final class Split {
    private Split() {}

    public static SplitSpec inSeq() {
        return new SplitSpec(SplitMode.IN_SEQ_SPLIT);
    }

    public static SplitSpec roundRobin() {
        return new SplitSpec(SplitMode.ROUND_ROBIN_SPLIT);
    }

    public static SplitSpec none() {
        return new SplitSpec(SplitMode.NONE);
    }
}
