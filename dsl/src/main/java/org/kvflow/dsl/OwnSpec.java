package org.kvflow.dsl;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;

/**
 * The ownership stage (SPEC §4): shared KV by page id, or the replicated baseline, over per-rank
 * pools sized in pages or from a byte budget (the page size comes from the config, the row size
 * from the model); optionally keeping finished pages as a device prefix cache. Made by
 * {@link Ownership}.
 *
 * @param layout        shared KV or the replicated baseline
 * @param pagesPerRank  pages per rank's pool, or null when sized by budget
 * @param budgetBytes   bytes per rank's pool, or null when sized in pages
 * @param prefixCaching whether finished pages stay as a device prefix cache
 */
public record OwnSpec(PoolLayout layout, @Nullable Integer pagesPerRank, @Nullable Long budgetBytes, boolean prefixCaching) implements StageSpec {
    /** Checks that the layout is given. */
    public OwnSpec {
        Objects.requireNonNull(layout, "layout");
    }

    /**
     * Pools sized in pages.
     *
     * @param pages pages per rank
     * @return the new stage
     */
    public OwnSpec pagesPerRank(int pages) {
        return new OwnSpec(layout, pages, null, prefixCaching);
    }

    /**
     * Pools sized from a per-rank byte budget (SPEC §3.4); needs the flow's model for the page bytes.
     *
     * @param bytes bytes per rank
     * @return the new stage
     */
    public OwnSpec budgetBytes(long bytes) {
        return new OwnSpec(layout, null, bytes, prefixCaching);
    }

    /**
     * Whether finished requests' pages stay as a device prefix cache.
     *
     * @param on keep them (the default) or free them
     * @return the new stage
     */
    public OwnSpec prefixCaching(boolean on) {
        return new OwnSpec(layout, pagesPerRank, budgetBytes, on);
    }

    /** The per-rank capacity at page size {@code pageSize}; {@code kv} is needed for a byte budget. */
    PoolCapacity capacity(int pageSize, @Nullable KvLayout kv) {
        if (budgetBytes != null) {
            return PoolCapacity.fromBudget(budgetBytes, Objects.requireNonNull(kv, "a byte budget needs a model"), pageSize);
        }
        return PoolCapacity.ofPages(Objects.requireNonNull(pagesPerRank, "pagesPerRank"), pageSize);
    }

    @Override public String stage() { return "own"; }
    @Override public int rank() { return 2; }

    @Override
    public String toString() {
        String size = pagesPerRank != null ? pagesPerRank + " pages per rank" : budgetBytes != null ? budgetBytes + " B per rank" : "no size";
        return "own(" + (layout == PoolLayout.SHARED ? "byPageId" : "replicated") + ", " + size + (prefixCaching ? ", prefix cache" : "") + ")";
    }
}
