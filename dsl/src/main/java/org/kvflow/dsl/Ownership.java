package org.kvflow.dsl;

import org.kvflow.core.model.KvLayout;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;

/** Factories for the ownership stage. */
public final class Ownership {
    private Ownership() {}

    /** Shared KV: page {@code p} on rank {@code p mod cp} (SPEC §4.1), pools sized in pages. */
    public static OwnSpec byPageId(int pagesPerRank, int pageSize) {
        return new OwnSpec(PoolLayout.SHARED, PoolCapacity.ofPages(pagesPerRank, pageSize), true);
    }

    /** Shared KV with pools sized from a per-rank byte budget (SPEC §3.4). */
    public static OwnSpec byPageId(long budgetBytes, KvLayout layout, int pageSize) {
        return new OwnSpec(PoolLayout.SHARED, PoolCapacity.fromBudget(budgetBytes, layout, pageSize), true);
    }

    /** The replicated baseline (plain CP): every rank holds every page. */
    public static OwnSpec replicated(int pagesPerRank, int pageSize) {
        return new OwnSpec(PoolLayout.REPLICATED, PoolCapacity.ofPages(pagesPerRank, pageSize), true);
    }
}
