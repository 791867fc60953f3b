package org.kvflow.operators;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import org.kvflow.core.hicache.PageHashChain;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.ownership.RequestPageTable;
import org.kvflow.core.pool.KvPools;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.RankPools;

/**
 * The state one CP group's pipeline shares: the logical allocator and per-rank pools, each rank's
 * KV bytes (when a {@link KvModel} is given), the device prefix cache, and page reservations made
 * by admission for batches not yet allocated. All page accounting goes through here, under this
 * object's lock; listeners hear when pages come back, which is what admission waits for.
 *
 * <p>Reservation invariant: {@code reserved ≤ free + evictable}, so an allocation that admission
 * reserved always succeeds (evicting cached pages if needed).
 */
public final class KvGroup implements AutoCloseable {
    private final CpSharedKvConfig config;
    private final KvPools pools;
    private final @Nullable KvModel model;
    private final @Nullable RankStores stores;
    private final @Nullable PrefixCache cache;
    private final @Nullable HostPrefixSource hostCache;
    private final Set<RequestState> live = new LinkedHashSet<>();
    private final List<Runnable> freeListeners = new CopyOnWriteArrayList<>();
    private long reservedPages;

    private KvGroup(CpSharedKvConfig config, PoolLayout layout, PoolCapacity capacity, @Nullable KvModel model, boolean prefixCaching,
                    @Nullable HostPrefixSource hostCache, PageMemory memory, RankPools rankPools) {
        this.config = Objects.requireNonNull(config, "config");
        if (capacity.pageSize() != config.pageSize()) {
            throw new IllegalArgumentException("pool page size " + capacity.pageSize() + " != config page size " + config.pageSize());
        }
        this.pools = layout == PoolLayout.SHARED ? KvPools.shared(config.cpSize(), capacity) : KvPools.replicated(config.cpSize(), capacity);
        this.model = model;
        this.stores = model == null ? null : RankStores.open(rankPools, memory, model.layout(), pools.ownership(), layout, capacity.pagesPerRank());
        this.cache = prefixCaching ? new PrefixCache() : null;
        if (stores != null) {
            stores.onLoss(this::rankLost);
        }
        if (hostCache != null && model == null) {
            throw new IllegalArgumentException("loading host pages needs KV bytes: give the group a model");
        }
        this.hostCache = hostCache;
    }

    /**
     * A group with its rank stores on the Java heap.
     *
     * @param config        the CP shared-KV configuration
     * @param layout        shared KV or the replicated baseline
     * @param capacity      per-rank pool capacity
     * @param model         the model whose KV bytes are computed, or {@code null} to plan pages only
     * @param prefixCaching keep finished requests' full pages as a prefix cache
     * @return the group
     */
    public static KvGroup create(CpSharedKvConfig config, PoolLayout layout, PoolCapacity capacity,
                                 @Nullable KvModel model, boolean prefixCaching) {
        Builder builder = builder(config, layout, capacity).prefixCaching(prefixCaching);
        return (model == null ? builder : builder.model(model)).build();
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
        private @Nullable KvModel model;
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
         * The model whose KV bytes the rank stores hold; without one the group plans pages only.
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

    /**
     * The host cache pages are loaded from.
     *
     * @return it, or null
     */
    public @Nullable HostPrefixSource hostCache() {
        return hostCache;
    }

    /**
     * The configuration the group was built for.
     *
     * @return the configuration
     */
    public CpSharedKvConfig config() {
        return config;
    }

    /**
     * Shared KV or the replicated baseline.
     *
     * @return the layout
     */
    public PoolLayout layout() {
        return pools.layout();
    }

    /**
     * Which rank owns each logical page (contract §4).
     *
     * @return the ownership map
     */
    public OwnershipMap ownership() {
        return pools.ownership();
    }

    /**
     * The model whose KV bytes the stores hold.
     *
     * @return it, or null when the group plans pages only
     */
    public @Nullable KvModel model() {
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

    /**
     * Logical capacity of the group's pools.
     *
     * @return tokens
     */
    public synchronized long capacityTokens() {
        return pools.capacityTokens();
    }

    /**
     * contract §6.1 {@code remTotal} before decode reservations: free + evictable − reserved.
     *
     * @return tokens
     */
    public synchronized long budgetTokens() {
        return (pools.freePages() + evictablePages() - reservedPages) * config.pageSize();
    }

    /**
     * Physical pages in use, all ranks together.
     *
     * @return pages
     */
    public synchronized long physicalPagesInUse() {
        return pools.physicalPagesInUse();
    }

    /**
     * Physical pages in use on one rank.
     *
     * @param rank the CP rank
     * @return pages
     */
    public synchronized int physicalPagesOnRank(int rank) {
        return pools.rank(rank).usedPages();
    }

    /**
     * Per-rank pool capacity.
     *
     * @return pages, page size and the budget they came from
     */
    public PoolCapacity capacity() {
        return pools.capacity();
    }

    /**
     * The most physical pages in use at once so far.
     *
     * @return pages
     */
    public synchronized long peakPhysicalPages() {
        return pools.peakPhysicalPages();
    }

    /**
     * Requests tracked and not released.
     *
     * @return how many
     */
    public synchronized int liveRequests() {
        return live.size();
    }

    /**
     * Pages reserved by admission and not yet allocated.
     *
     * @return pages
     */
    public synchronized long reservedPages() {
        return reservedPages;
    }

    /**
     * Pages held by the device prefix cache.
     *
     * @return pages (0 without prefix caching)
     */
    public synchronized int cachedPages() {
        return cache == null ? 0 : cache.size();
    }

    /**
     * Starts tracking a request (so cancellation can release it).
     *
     * @param request the request
     * @return its state
     */
    public synchronized RequestState track(PrefillRequest request) {
        RequestState state = new RequestState(request, config.pageSize(), cache != null || hostCache != null);
        live.add(state);
        return state;
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
    public synchronized <T> T withAccountingHeld(java.util.function.Supplier<T> pass) {
        return pass.get();
    }

    /**
     * Tokens of the longest cached prefix a request that has not started could reuse (at least one token is left to compute).
     *
     * @param state the request
     * @return tokens, whole pages
     */
    public synchronized int prefixMatchTokens(RequestState state) {
        if (cache == null || state.started) {
            return 0;
        }
        int maxPages = (state.request().seqLen() - 1) / config.pageSize();
        return cache.match(state.pageKeys(), maxPages).length * config.pageSize();
    }

    /**
     * Tokens a request that has not started could load from the host cache: whole pages right
     * after its device prefix, leaving at least one token to compute.
     *
     * @param state the request
     * @return tokens, whole pages
     */
    public synchronized long hostHitTokens(RequestState state) {
        if (hostCache == null || state.started) {
            return 0;
        }
        int devicePages = prefixMatchTokens(state) / config.pageSize();
        int maxPages = (state.request().seqLen() - 1) / config.pageSize();
        int loadable = hostCache.loadablePages(state.pageHashes(), devicePages);
        return (long) Math.max(0, Math.min(loadable, maxPages - devicePages)) * config.pageSize();
    }

    /**
     * {@link #reserve(RequestState, long, long)} without a host hit.
     *
     * @param state       the request
     * @param chunkTokens tokens of the next chunk
     * @return whether the pages were reserved
     */
    public synchronized boolean reserve(RequestState state, long chunkTokens) {
        return reserve(state, 0, chunkTokens);
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
    public synchronized boolean reserve(RequestState state, long hostTokens, long chunkTokens) {
        if (hostTokens != 0 && (state.started || hostTokens % config.pageSize() != 0)) {
            throw new ReservationException(state.id(), ": a host hit is whole pages on the first chunk, was " + hostTokens);
        }
        boolean first = !state.started;
        int[] prefix = new int[0];
        if (first && cache != null) {
            int maxPages = (state.request().seqLen() - 1) / config.pageSize();
            prefix = cache.match(state.pageKeys(), maxPages);
            cache.lock(state.pageKeys(), prefix.length);
        }
        long admitted = first ? (long) prefix.length * config.pageSize() : state.admittedTokens;
        long needed = RequestPageTable.pagesFor(admitted + hostTokens + chunkTokens, config.pageSize())
                - RequestPageTable.pagesFor(admitted, config.pageSize());
        if (pools.freePages() + evictablePages() - reservedPages < needed) {
            if (first && cache != null) {
                cache.unlock(state.pageKeys(), prefix.length);
            }
            return false;
        }
        if (first) {
            state.table().adoptPrefix(prefix);
            state.prefixPages = prefix.length;
            for (int t = 0; t < state.table().seqLen(); t++) {
                state.reqToToken[t] = state.table().loc(t);
            }
            state.started = true;
            state.admittedTokens = state.table().seqLen();
            state.hostPages = (int) (hostTokens / config.pageSize());
            state.hostAllocationPending = state.hostPages > 0;
        }
        state.admittedTokens += hostTokens + chunkTokens;
        reservedPages += needed;
        state.reservedPages += needed;
        return true;
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
    public synchronized int[] allocate(RequestState state, long chunkTokens) {
        long tokens = chunkTokens + (state.hostAllocationPending ? (long) state.hostPages * config.pageSize() : 0);
        state.hostAllocationPending = false;
        long needed = RequestPageTable.pagesFor(state.filledTokens() + tokens, config.pageSize()) - state.table().pageCount();
        if (needed > state.reservedPages) {
            throw new ReservationException(state.id(), " allocates " + needed + " pages with " + state.reservedPages + " reserved");
        }
        long shortBy = needed - pools.freePages();
        if (shortBy > 0 && cache != null) {
            pools.free(cache.evict((int) shortBy));
        }
        long from = state.filledTokens();
        int[] fresh = state.table().extend(tokens, pools);
        for (long t = from; t < from + tokens; t++) {
            state.reqToToken[(int) t] = state.table().loc(t);
        }
        reservedPages -= needed;
        state.reservedPages -= needed;
        return fresh;
    }

    /**
     * Releases a request's pages: with {@code keepInCache}, full pages go to the prefix cache (the
     * tail page is freed); otherwise all of its own pages are freed. Idempotent.
     *
     * @param state       the request
     * @param keepInCache whether its full pages stay as prefix cache
     */
    public void release(RequestState state, boolean keepInCache) {
        synchronized (this) {
            if (state.released) {
                return;
            }
            state.released = true;
            live.remove(state);
            reservedPages -= state.reservedPages;
            state.reservedPages = 0;
            int[] pages = state.table().pages();
            List<Integer> toFree = new ArrayList<>();
            if (cache != null) {
                Arrays.stream(cache.unlock(state.pageKeys(), state.prefixPages)).forEach(toFree::add);
            }
            boolean cacheable = keepInCache && cache != null && state.lost() == null;
            for (int pos = state.prefixPages; pos < pages.length; pos++) {
                boolean full = (long) (pos + 1) * config.pageSize() <= state.filledTokens() && pos < state.pageKeys().size();
                if (!(cacheable && full && cache.insert(state.pageKeys().get(pos), pages[pos]))) {
                    toFree.add(pages[pos]);
                }
            }
            pools.free(toFree.stream().mapToInt(Integer::intValue).toArray());
        }
        freeListeners.forEach(Runnable::run);
    }

    /**
     * Rank {@code rank}'s pool is gone (its process died): every live request holding a page stored
     * there is marked lost ({@link RequestState#lost}, so its next stage fails it with {@code why}
     * and frees its pages), and every cached page stored there is forgotten, so no later request
     * reuses bytes that are gone. Page accounting stays whole: the rank's pages come back as their
     * holders are released, for the rank's fresh pool once it is restarted.
     */
    private void rankLost(int rank, RuntimeException why) {
        RankStores s = Objects.requireNonNull(stores);
        java.util.function.IntPredicate storedThere = page -> Arrays.stream(s.ranksStoring(page)).anyMatch(r -> r == rank);
        synchronized (this) {
            for (RequestState state : live) {
                if (Arrays.stream(state.table().pages()).anyMatch(storedThere)) {
                    state.lose(why);
                }
            }
            if (cache != null) {
                pools.free(cache.forget(storedThere));
            }
        }
        freeListeners.forEach(Runnable::run);
    }

    /** Releases every request still tracked (cancellation or a failed stream); nothing is cached. */
    public void releaseAll() {
        List<RequestState> all;
        synchronized (this) {
            all = new ArrayList<>(live);
        }
        for (RequestState state : all) {
            release(state, false);
        }
    }

    /** Frees every unlocked cached page. */
    public void evictCache() {
        synchronized (this) {
            if (cache != null) {
                pools.free(cache.evict(Integer.MAX_VALUE));
            }
        }
        freeListeners.forEach(Runnable::run);
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
    public synchronized WarmPages warmPages(List<byte[]> pageHashes) {
        if (cache == null || stores == null) {
            throw new IllegalStateException("a warm start fills the device prefix cache: the group needs prefix caching and a model");
        }
        List<String> keys = pageHashes.stream().map(PageHashChain::key).toList();
        int cached = cache.match(keys, keys.size()).length;
        int needed = keys.size() - cached;
        long shortBy = needed - pools.freePages();
        if (shortBy > 0) {
            pools.free(cache.evict((int) shortBy));
            cached = cache.match(keys, keys.size()).length;
            needed = keys.size() - cached;
        }
        // a prompt longer than the pools can hold restores the prefix that fits
        return new WarmPages(cached, pools.allocate((int) Math.min(needed, pools.freePages())));
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
        int held;
        synchronized (this) {
            Objects.requireNonNull(cache, "prefix cache");
            int[] pages = warm.pages();
            List<Integer> toFree = new ArrayList<>();
            for (int i = 0; i < pages.length; i++) {
                // a key cached meanwhile keeps its own page: the chain stays whole, this copy goes back
                if (i >= restored || !cache.insert(PageHashChain.key(pageHashes.get(warm.cached() + i)), pages[i])) {
                    toFree.add(pages[i]);
                }
            }
            held = warm.cached() + restored;
            pools.free(toFree.stream().mapToInt(Integer::intValue).toArray());
        }
        freeListeners.forEach(Runnable::run);
        return held;
    }

    /**
     * A warm start's pages.
     *
     * @param cached leading pages of the prompt the prefix cache held already
     * @param pages  logical pages allocated for the positions from {@code cached} on
     */
    public record WarmPages(int cached, int[] pages) {}

    /**
     * Logical pages allocated but held by no live request and no cache entry.
     *
     * @return the leaked pages: empty unless pages leaked
     */
    public synchronized List<Integer> leakCheck() {
        Set<Integer> accounted = new HashSet<>();
        for (RequestState state : live) {
            Arrays.stream(state.table().pages()).forEach(accounted::add);
        }
        if (cache != null) {
            accounted.addAll(cache.pages());
        }
        List<Integer> leaked = new ArrayList<>(pools.leakCheck());
        leaked.removeIf(accounted::contains);
        return leaked;
    }

    /**
     * Runs {@code listener} whenever pages come back.
     *
     * @param listener what to run
     * @return a handle that removes it
     */
    public Runnable onPagesFreed(Runnable listener) {
        freeListeners.add(listener);
        return () -> freeListeners.remove(listener);
    }

    /**
     * How many listeners wait for freed pages: one per live admission subscriber, so a count that only grows is a leak.
     *
     * @return how many
     */
    public int pageListeners() {
        return freeListeners.size();
    }

    private long evictablePages() {
        return cache == null ? 0 : cache.evictablePages();
    }
}
