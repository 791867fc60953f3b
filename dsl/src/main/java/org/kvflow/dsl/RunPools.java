package org.kvflow.dsl;

import java.util.List;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.operators.group.KvGroup;

/**
 * What one run's pools can tell while it runs and after it ended: pages in use and at peak, the
 * requests still holding pages, the prefix cache and any leak. Read only: pages are reserved,
 * allocated and released by the pipeline's stages alone.
 */
public final class RunPools {
    private final KvGroup group;

    RunPools(KvGroup group) {
        this.group = group;
    }

    /** {@return per-rank pool capacity: pages, page size and the budget they came from} */
    public PoolCapacity capacity() {
        return group.capacity();
    }

    /** {@return physical pages in use now, all ranks together} */
    public long physicalPagesInUse() {
        return group.physicalPagesInUse();
    }

    /** {@return the CP ranks the pools are spread over} */
    public int ranks() {
        return group.config().cpSize();
    }

    /**
     * Physical pages in use now on one rank.
     *
     * @param rank the CP rank
     * @return pages
     */
    public int physicalPagesOnRank(int rank) {
        return group.physicalPagesOnRank(rank);
    }

    /** {@return the most physical pages in use at once so far} */
    public long peakPhysicalPages() {
        return group.peakPhysicalPages();
    }

    /** {@return requests that hold pages now} */
    public int liveRequests() {
        return group.liveRequests();
    }

    /** {@return pages held by the device prefix cache (0 without prefix caching)} */
    public int cachedPages() {
        return group.cachedPages();
    }

    /**
     * Tokens of the longest prefix the device cache holds for a request now, as a router would ask
     * before it sends the request here; the cache is only read.
     *
     * @param probe the request's pages, hashed once for every instance asked
     * @return tokens, whole pages, at least one token short of the prompt
     * @throws IllegalArgumentException if the probe hashed pages of another size than this run's
     */
    public int cachedPrefixTokens(PromptProbe probe) {
        return group.prefixMatchTokens(probe.probe);
    }

    /** {@return cached prefix pages the device cache pushed out to make room for others in this run} */
    public long evictedPages() {
        return group.evictedPages();
    }

    /** {@return tokens requests of this run took from the host cache instead of computing them} */
    public long hostTokensServed() {
        return group.hostTokensServed();
    }

    /** {@return logical pages allocated but held by no live request and no cache entry: empty unless pages leaked} */
    public List<Integer> leakCheck() {
        return group.leakCheck();
    }
}
