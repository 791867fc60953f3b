package org.kvflow.dsl;

import java.util.Objects;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;

/**
 * The ownership stage (SPEC §4): shared KV by page id, or the replicated baseline, over per-rank
 * pools of {@code capacity}; optionally keeping finished pages as a device prefix cache. Made by
 * {@link Ownership}.
 */
public record OwnSpec(PoolLayout layout, PoolCapacity capacity, boolean prefixCaching) implements StageSpec {
    public OwnSpec {
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(capacity, "capacity");
    }

    public OwnSpec prefixCaching(boolean on) {
        return new OwnSpec(layout, capacity, on);
    }

    @Override public String stage() { return "own"; }
    @Override public int rank() { return 2; }

    @Override
    public String toString() {
        return "own(" + (layout == PoolLayout.SHARED ? "byPageId" : "replicated") + ", " + capacity.pagesPerRank()
                + " pages x " + capacity.pageSize() + " tokens per rank" + (prefixCaching ? ", prefix cache" : "") + ")";
    }
}
