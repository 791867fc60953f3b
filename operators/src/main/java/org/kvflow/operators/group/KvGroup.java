package org.kvflow.operators.group;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.KvPools;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.RankPools;
import org.kvflow.model.KvModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.ReservationException;

/**
 * The state one CP group's pipeline shares: the logical allocator and per-rank pools, each rank's
 * KV bytes (when a {@link KvModel} is given), the device prefix cache, and page reservations made
 * by admission for batches not yet allocated. The pages are counted by its {@link PageAccounting}
 * (under one lock; the device prefix cache is its {@link PrefixIndex}), a rank that dies is handled
 * by {@link RankLoss}; listeners hear when pages come back, which is what admission waits for.
 *
 * <p>Reservation invariant: {@code reserved ≤ free + evictable}, so an allocation that admission
 * reserved always succeeds (evicting cached pages if needed).
 */
public final class KvGroup implements AutoCloseable {
    private final CpSharedKvConfig config;
    private final KvPools pools;
    private final KvModel model;
    private final @Nullable RankStores stores;
    private final @Nullable HostPrefixSource hostCache;
    private final PageAccounting accounting;

    private KvGroup(CpSharedKvConfig config, PoolLayout layout, PoolCapacity capacity, KvModel model, boolean prefixCaching,
                    @Nullable HostPrefixSource hostCache, PageMemory memory, RankPools rankPools) {
        this.config = Objects.requireNonNull(config, "config");
        if (capacity.pageSize() != config.pageSize()) {
            throw new IllegalArgumentException("pool page size " + capacity.pageSize() + " != config page size " + config.pageSize());
        }
        HostPageTier tier = hostCache instanceof HostPageTier t ? t : null;
        if (tier != null && (model.storesBytes() || !prefixCaching)) {
            throw new IllegalArgumentException("a host page tier holds page keys, not bytes, and is fed by the device prefix cache: it needs a"
                    + " pages-only model and prefix caching on (a group with KV bytes loads host pages from a replayed journal)");
        }
        if (hostCache != null && tier == null && !model.storesBytes()) {
            throw new IllegalArgumentException("loading host pages needs KV bytes: give the group a model that stores them");
        }
        this.pools = layout == PoolLayout.SHARED ? KvPools.shared(config.cpSize(), capacity) : KvPools.replicated(config.cpSize(), capacity);
        this.accounting = new PageAccounting(pools, prefixCaching, prefixCaching || hostCache != null, tier);
        this.model = model;
        this.hostCache = hostCache;
        this.stores = !model.storesBytes() ? null : RankStores.open(rankPools, memory, model.layout(), pools.ownership(), layout, capacity.pagesPerRank());
        if (stores != null) {
            stores.onLoss(new RankLoss(stores, accounting)::handle);
            stores.onRestartEnded(accounting::pagesFreed); // admission waits for it
        }
    }

    /**
     * A group with its rank stores on the Java heap.
     *
     * @param config        the CP shared-KV configuration
     * @param layout        shared KV or the replicated baseline
     * @param capacity      per-rank pool capacity
     * @param model         the model whose KV bytes are computed ({@link KvModel#pagesOnly()} to plan pages only)
     * @param prefixCaching keep finished requests' full pages as a prefix cache
     * @return the group
     */
    public static KvGroup create(CpSharedKvConfig config, PoolLayout layout, PoolCapacity capacity,
                                 KvModel model, boolean prefixCaching) {
        return builder(config, layout, capacity).model(model).prefixCaching(prefixCaching).build();
    }

    /**
     * A group that also loads prefix pages from a host cache (contract §6.2 host hits, §11.3): pages
     * beyond the device prefix that the host holds are loaded into owner pages, not recomputed.
     *
     * @param config        the CP shared-KV configuration
     * @param layout        shared KV or the replicated baseline
     * @param capacity      per-rank pool capacity
     * @param model         the model whose KV bytes are computed
     * @param prefixCaching keep finished requests' full pages as a prefix cache
     * @param hostCache     where host-hit pages are loaded from
     * @return the group
     */
    public static KvGroup create(CpSharedKvConfig config, PoolLayout layout, PoolCapacity capacity,
                                 KvModel model, boolean prefixCaching, HostPrefixSource hostCache) {
        return builder(config, layout, capacity).model(model).prefixCaching(prefixCaching).hostCache(hostCache).build();
    }

    /**
     * A group of {@code layout} pools of {@code capacity} per rank; the rest is optional.
     *
     * @param config   the CP shared-KV configuration
     * @param layout   shared KV or the replicated baseline
     * @param capacity per-rank pool capacity
     * @return a builder
     */
    public static Builder builder(CpSharedKvConfig config, PoolLayout layout, PoolCapacity capacity) {
        return new Builder(config, layout, capacity);
    }

    /** Builds a {@link KvGroup}: pages only by default, no caches, rank stores on the Java heap. */
    public static final class Builder {
        private final CpSharedKvConfig config;
        private final PoolLayout layout;
        private final PoolCapacity capacity;
        private KvModel model = KvModel.pagesOnly();
        private boolean prefixCaching;
        private @Nullable HostPrefixSource hostCache;
        private PageMemory memory = new HeapPageMemory();
        private RankPools rankPools = RankPools.inProcess();

        private Builder(CpSharedKvConfig config, PoolLayout layout, PoolCapacity capacity) {
            this.config = Objects.requireNonNull(config, "config");
            this.layout = Objects.requireNonNull(layout, "layout");
            this.capacity = Objects.requireNonNull(capacity, "capacity");
        }

        /**
         * The model whose KV bytes the rank stores hold; {@link KvModel#pagesOnly()} (the default) plans pages only.
         *
         * @param m the model
         * @return this builder
         */
        public Builder model(KvModel m) {
            this.model = Objects.requireNonNull(m, "model");
            return this;
        }

        /**
         * Keep finished requests' full pages as a device prefix cache.
         *
         * @param on whether to
         * @return this builder
         */
        public Builder prefixCaching(boolean on) {
            this.prefixCaching = on;
            return this;
        }

        /**
         * Load prefix pages the host cache holds instead of computing them (contract §6.2 host hits, §11.3); needs a model.
         *
         * @param source the host cache
         * @return this builder
         */
        public Builder hostCache(HostPrefixSource source) {
            this.hostCache = Objects.requireNonNull(source, "hostCache");
            return this;
        }

        /**
         * Where the rank stores (and the full views built from them) live: a device memory puts the pools in GPU memory.
         *
         * @param m the page memory
         * @return this builder
         */
        public Builder memory(PageMemory m) {
            this.memory = Objects.requireNonNull(m, "memory");
            return this;
        }

        /**
         * Where each rank's pool comes from: allocated by this process in the memory (the default)
         * or opened there from rank processes that hold them (the {@code ranks} module).
         *
         * @param source the pools' source; the group closes it with its stores
         * @return this builder
         */
        public Builder rankPools(RankPools source) {
            this.rankPools = Objects.requireNonNull(source, "rankPools");
            return this;
        }

        /**
         * Allocates the pools (and, with a model, the rank stores).
         *
         * @return the group
         * @throws org.kvflow.pages.OutOfDeviceMemoryException naming the sizes when the memory cannot hold the stores
         */
        public KvGroup build() {
            return new KvGroup(config, layout, capacity, model, prefixCaching, hostCache, memory, rankPools);
        }
    }

    /** {@return the host cache pages are loaded from, or null} */
    public @Nullable HostPrefixSource hostCache() {
        return hostCache;
    }

    /** {@return the configuration the group was built for} */
    public CpSharedKvConfig config() {
        return config;
    }

    /** {@return the layout: shared KV or the replicated baseline} */
    public PoolLayout layout() {
        return pools.layout();
    }

    /** {@return which rank owns each logical page (contract §4)} */
    public OwnershipMap ownership() {
        return pools.ownership();
    }

    /** {@return the model whose KV bytes the stores hold ({@link KvModel#pagesOnly()} when the group plans pages only)} */
    public KvModel model() {
        return model;
    }

    /**
     * The ranks' KV bytes; only with a model.
     *
     * @return the rank stores
     * @throws IllegalStateException when the group plans pages only
     */
    public RankStores stores() {
        if (stores == null) {
            throw new IllegalStateException("this group plans pages only; it has no KV bytes");
        }
        return stores;
    }

    /** {@return the logical capacity of the group's pools, in tokens} */
    public long capacityTokens() {
        return accounting.capacityTokens();
    }

    /**
     * contract §6.1 {@code remTotal} before decode reservations: free + evictable − reserved.
     *
     * @return tokens
     */
    public long budgetTokens() {
        return accounting.budgetPages() * config.pageSize();
    }

    /** {@return physical pages in use, all ranks together} */
    public long physicalPagesInUse() {
        return accounting.physicalPagesInUse();
    }

    /**
     * Physical pages in use on one rank.
     *
     * @param rank the CP rank
     * @return pages
     */
    public int physicalPagesOnRank(int rank) {
        return accounting.physicalPagesOnRank(rank);
    }

    /** {@return the per-rank pool capacity: pages, page size and the budget they came from} */
    public PoolCapacity capacity() {
        return pools.capacity();
    }

    /** {@return the most physical pages in use at once so far} */
    public long peakPhysicalPages() {
        return accounting.peakPhysicalPages();
    }

    /** {@return how many requests are tracked and not released} */
    public int liveRequests() {
        return accounting.liveRequests();
    }

    /** {@return pages reserved by admission and not yet allocated} */
    public long reservedPages() {
        return accounting.reservedPages();
    }

    /**
     * Physical pages the device prefix cache holds on one rank (part of {@link #physicalPagesOnRank}).
     *
     * @param rank the CP rank
     * @return pages (0 without prefix caching)
     */
    public int cachedPagesOnRank(int rank) {
        return accounting.cachedPagesOnRank(rank);
    }

    /** {@return pages held by the device prefix cache (0 without prefix caching)} */
    public int cachedPages() {
        return accounting.cachedPages();
    }

    /**
     * Starts tracking a request (so cancellation can release it).
     *
     * @param request the request
     * @return its state
     */
    public RequestState track(PrefillRequest request) {
        return accounting.track(request);
    }

    /**
     * Runs {@code pass} with the group's page accounting held still: the budget, prefix matches and
     * host hits it reads stay true until it returns, so the reservations it makes succeed as it
     * planned them. Admission forms each batch this way.
     *
     * @param <T>  what the pass returns
     * @param pass the work to run
     * @return what it returned
     */
    public <T> T withAccountingHeld(Supplier<T> pass) {
        return accounting.held(pass);
    }

    /**
     * Tokens of the longest cached prefix a request that has not started could reuse (at least one token is left to compute).
     *
     * @param state the request
     * @return tokens, whole pages
     */
    public int prefixMatchTokens(RequestState state) {
        return accounting.prefixMatchPages(state) * config.pageSize();
    }

    /**
     * Tokens of the longest cached prefix a probed request could reuse if it came now (what a router
     * asks of each instance); it is not tracked and nothing is locked or touched.
     *
     * @param probe the request's hashed pages
     * @return tokens, whole pages
     * @throws IllegalArgumentException if the probe hashed pages of another size
     */
    public int prefixMatchTokens(PrefixProbe probe) {
        return accounting.prefixMatchPages(probe.state(config.pageSize())) * config.pageSize();
    }

    /**
     * Tokens a request that has not started could load from the host cache: whole pages right
     * after its device prefix, leaving at least one token to compute.
     *
     * @param state the request
     * @return tokens, whole pages
     */
    public long hostHitTokens(RequestState state) {
        return accounting.held(() -> {
            if (hostCache == null || state.started()) {
                return 0L;
            }
            int devicePages = accounting.prefixMatchPages(state);
            int maxPages = (state.request().seqLen() - 1) / config.pageSize();
            int loadable = hostCache.loadablePages(state.pageHashes(), devicePages);
            return (long) Math.max(0, Math.min(loadable, maxPages - devicePages)) * config.pageSize();
        });
    }

    /**
     * {@link #reserve(RequestState, long, long)} without a host hit.
     *
     * @param state       the request
     * @param chunkTokens tokens of the next chunk
     * @return whether the pages were reserved
     */
    public boolean reserve(RequestState state, long chunkTokens) {
        return accounting.reserve(state, 0, chunkTokens);
    }

    /**
     * Reserves the pages of the next chunk of {@code chunkTokens} and advances the request's
     * admission cursor; on the first chunk it first locks and adopts the cached device prefix, and
     * reserves {@code hostTokens} (whole pages, loaded from the host cache) right after it. Returns
     * false, changing nothing, when free + evictable pages minus existing reservations cannot
     * cover it.
     *
     * @param state       the request
     * @param hostTokens  tokens loaded from the host cache on the first chunk (whole pages), else 0
     * @param chunkTokens tokens of the next chunk
     * @return whether the pages were reserved
     * @throws ReservationException if a host hit is asked for after the first chunk or is not whole pages
     */
    public boolean reserve(RequestState state, long hostTokens, long chunkTokens) {
        return accounting.reserve(state, hostTokens, chunkTokens);
    }

    /**
     * Turns the reservation of the next chunk into pages on their owners (contract §4.4), evicting
     * cached pages if the free list is short; on the first chunk this includes the host-hit pages.
     *
     * @param state       the request
     * @param chunkTokens tokens of the chunk
     * @return the logical pages allocated
     * @throws ReservationException if the chunk needs more pages than the request reserved
     */
    public int[] allocate(RequestState state, long chunkTokens) {
        return accounting.allocate(state, chunkTokens);
    }

    /**
     * Releases a request's pages: with {@code keepInCache}, full pages go to the prefix cache (the
     * tail page is freed); otherwise all of its own pages are freed. Idempotent.
     *
     * @param state       the request
     * @param keepInCache whether its full pages stay as prefix cache
     */
    public void release(RequestState state, boolean keepInCache) {
        accounting.release(state, keepInCache);
    }

    /** Releases every request still tracked (cancellation or a failed stream); nothing is cached. */
    public void releaseAll() {
        accounting.releaseAll();
    }

    /** {@return whether a lost rank is being started again now: admission holds new work until it is back, for a while} */
    public boolean rankRestarting() {
        return stores != null && stores.restarting();
    }

    /** {@return cached prefix pages the device cache pushed out to make room for others, since the group was made} */
    public long evictedPages() {
        return accounting.evictedPages();
    }

    /** {@return tokens requests took from the host cache instead of computing them, since the group was made} */
    public long hostTokensServed() {
        return accounting.hostPagesServed() * config.pageSize();
    }

    /** Frees every unlocked cached page (a host tier is not told: they are dropped, not pushed out). */
    public void evictCache() {
        accounting.evictCache();
    }

    /** Frees the rank stores' memory (device memory when the pools live on a GPU); page accounting stays readable. */
    @Override
    public void close() {
        if (stores != null) {
            stores.close();
        }
    }

    /**
     * Pages to restore a prompt's full pages into for a warm start: how many leading pages the
     * device prefix cache holds already, and logical pages allocated now for the rest (unlocked
     * cached pages are evicted if the free list is short; a prompt longer than the pools can hold
     * gets the pages that fit, its first ones). Hand them to {@link #cacheRestored} once filled.
     *
     * @param pageHashes the prompt's chained full-page hashes, by position
     * @return the cached count and the pages allocated for positions from there on
     * @throws IllegalStateException without prefix caching or KV bytes
     */
    public WarmPages warmPages(List<byte[]> pageHashes) {
        if (stores == null) {
            throw new IllegalStateException("a warm start fills the device prefix cache: the group needs prefix caching and a model");
        }
        return accounting.held(() -> accounting.prefixIndex().warmPages(pageHashes));
    }

    /**
     * Puts the first {@code restored} pages of a warm start into the device prefix cache, under
     * the hashes of their positions, and frees the pages that were not restored.
     *
     * @param pageHashes the prompt's chained full-page hashes, as given to {@link #warmPages}
     * @param warm       what {@link #warmPages} returned
     * @param restored   leading pages of {@code warm.pages()} that hold their page's KV
     * @return leading pages of the prompt the cache now holds
     */
    public int cacheRestored(List<byte[]> pageHashes, WarmPages warm, int restored) {
        int held = accounting.held(() -> accounting.prefixIndex().cacheRestored(pageHashes, warm, restored));
        accounting.pagesFreed();
        return held;
    }

    /**
     * A warm start's pages.
     *
     * @param cached leading pages of the prompt the prefix cache held already
     * @param pages  logical pages allocated for the positions from {@code cached} on
     */
    public record WarmPages(int cached, int[] pages) {}

    /** {@return logical pages allocated but held by no live request and no cache entry: empty unless pages leaked} */
    public List<Integer> leakCheck() {
        return accounting.leakCheck();
    }

    /**
     * Runs {@code listener} whenever pages come back.
     *
     * @param listener what to run
     * @return a handle that removes it
     */
    public Runnable onPagesFreed(Runnable listener) {
        return accounting.onPagesFreed(listener);
    }

    /** {@return how many listeners wait for freed pages: one per live admission subscriber, so a count that only grows is a leak} */
    public int pageListeners() {
        return accounting.pageListeners();
    }
}
