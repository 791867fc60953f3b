package org.kvflow.dsl;

import org.kvflow.core.pool.PoolLayout;

/** Factories for the ownership stage; size the pools with {@link OwnSpec#pagesPerRank} or {@link OwnSpec#budgetBytes}. */
public final class Ownership {
    private Ownership() {}

    /**
     * Shared KV: page {@code p} on rank {@code p mod cp} (contract §4.1), with a device prefix cache.
     *
     * @return the stage, still to be sized with {@link OwnSpec#pagesPerRank} or {@link OwnSpec#budgetBytes}
     */
    public static OwnSpec byPageId() {
        return new OwnSpec(PoolLayout.SHARED, true);
    }

    /**
     * The replicated baseline (plain CP): every rank holds every page, with a device prefix cache.
     *
     * @return the stage, still to be sized
     */
    public static OwnSpec replicated() {
        return new OwnSpec(PoolLayout.REPLICATED, true);
    }
}
