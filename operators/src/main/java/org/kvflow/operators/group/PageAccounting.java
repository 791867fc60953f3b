package org.kvflow.operators.group;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.ownership.RequestPageTable;
import org.kvflow.core.pool.KvPools;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.operators.ReservationException;
import org.kvflow.operators.PrefillRequest;

/**
 * One CP group's page accounting (contract §4.4, §6.1): the pools' free pages, the requests that
 * hold pages, the reservations admission made for chunks not yet allocated, and the device prefix
 * index. It is the only code that moves a {@link RequestState} from one state to the next. Every
 * method holds this object's lock; listeners hear, after it is let go, that pages came back.
 *
 * <p>Reservation invariant: {@code reserved ≤ free + evictable}, so an allocation that admission
 * reserved always succeeds (evicting cached pages if needed).
 */
final class PageAccounting {
    private final KvPools pools;
    private final int pageSize;
    private final @Nullable PrefixIndex prefix;
    private final boolean hashPages;
    private final Set<RequestState> live = new LinkedHashSet<>();
    private final List<Runnable> freeListeners = new CopyOnWriteArrayList<>();
    private long reservedPages;
    /** Pages requests took from the host cache instead of computing them. */
    private long hostPagesServed;

    /**
     * @param pools         the group's pools
     * @param prefixCaching keep finished requests' full pages as a device prefix cache
     * @param hashPages     hash requests' full pages (either cache is on)
     * @param tier          a pages-only host tier that takes the device cache's evicted pages, or null
     */
    PageAccounting(KvPools pools, boolean prefixCaching, boolean hashPages, @Nullable HostPageTier tier) {
        this.pools = pools;
        this.pageSize = pools.capacity().pageSize();
        this.prefix = prefixCaching ? new PrefixIndex(pools, tier) : null;
        this.hashPages = hashPages;
    }

    synchronized long hostPagesServed() {
        return hostPagesServed;
    }

    synchronized long evictedPages() {
        return prefix == null ? 0 : prefix.evictedPages();
    }

    synchronized RequestState track(PrefillRequest request) {
        RequestState state = new RequestState(request, pageSize, hashPages);
        live.add(state);
        return state;
    }

    synchronized <T> T held(Supplier<T> pass) {
        return pass.get();
    }

    synchronized long budgetPages() {
        return pools.freePages() + evictablePages() - reservedPages;
    }

    synchronized int prefixMatchPages(RequestState state) {
        return prefix == null || state.started() ? 0 : prefix.matchPages(state);
    }

    /** See {@link KvGroup#reserve(RequestState, long, long)}. */
    synchronized boolean reserve(RequestState state, long hostTokens, long chunkTokens) {
        if (hostTokens != 0 && (state.started() || hostTokens % pageSize != 0)) {
            throw new ReservationException(state.id(), ": a host hit is whole pages on the first chunk, was " + hostTokens);
        }
        boolean first = !state.started();
        int[] locked = first && prefix != null ? prefix.lock(state) : new int[0];
        long admitted = first ? (long) locked.length * pageSize : state.admittedTokens();
        long needed = RequestPageTable.pagesFor(admitted + hostTokens + chunkTokens, pageSize) - RequestPageTable.pagesFor(admitted, pageSize);
        if (pools.freePages() + evictablePages() - reservedPages < needed) {
            if (first && prefix != null) {
                prefix.unlock(state, locked.length);
            }
            return false;
        }
        if (first) {
            state.start(locked, (int) (hostTokens / pageSize));
            hostPagesServed += hostTokens / pageSize;
        }
        state.admit(hostTokens + chunkTokens, needed);
        reservedPages += needed;
        return true;
    }

    /** See {@link KvGroup#allocate}. */
    synchronized int[] allocate(RequestState state, long chunkTokens) {
        long tokens = state.takeTokensToAllocate(chunkTokens);
        long needed = RequestPageTable.pagesFor(state.filledTokens() + tokens, pageSize) - state.table().pageCount();
        if (needed > state.reservedPages()) {
            throw new ReservationException(state.id(), " allocates " + needed + " pages with " + state.reservedPages() + " reserved");
        }
        if (prefix != null) {
            prefix.evict(needed - pools.freePages());
        }
        reservedPages -= needed;
        return state.extend(tokens, needed, pools);
    }

    /** See {@link KvGroup#release}. */
    void release(RequestState state, boolean keepInCache) {
        synchronized (this) {
            if (state.isReleased()) {
                return;
            }
            live.remove(state);
            reservedPages -= state.markReleased();
            int[] pages = state.table().pages();
            List<Integer> toFree = new ArrayList<>();
            if (prefix != null) {
                prefix.unlock(state, state.prefixPages());
            }
            boolean cacheable = keepInCache && prefix != null && state.lost() == null;
            for (int pos = state.prefixPages(); pos < pages.length; pos++) {
                boolean full = (long) (pos + 1) * pageSize <= state.filledTokens();
                if (!(cacheable && full && prefix.keep(state, pos, pages[pos]))) {
                    toFree.add(pages[pos]);
                }
            }
            pools.free(toFree.stream().mapToInt(Integer::intValue).toArray());
        }
        pagesFreed();
    }

    void releaseAll() {
        List<RequestState> all;
        synchronized (this) {
            all = new ArrayList<>(live);
        }
        for (RequestState state : all) {
            release(state, false);
        }
    }

    /**
     * Pages {@code storedThere} names lost their bytes ({@code why}): every live request holding one
     * is marked lost, and the prefix index forgets them.
     */
    void lose(IntPredicate storedThere, RuntimeException why) {
        synchronized (this) {
            for (RequestState state : live) {
                if (Arrays.stream(state.table().pages()).anyMatch(storedThere)) {
                    state.lose(why);
                }
            }
            if (prefix != null) {
                prefix.forget(storedThere);
            }
        }
        pagesFreed();
    }

    void evictCache() {
        synchronized (this) {
            if (prefix != null) {
                prefix.evictAll();
            }
        }
        pagesFreed();
    }

    /** The prefix index, for a warm start; the caller holds this object's lock. */
    PrefixIndex prefixIndex() {
        if (prefix == null) {
            throw new IllegalStateException("a warm start fills the device prefix cache: the group needs prefix caching and a model");
        }
        return prefix;
    }

    synchronized List<Integer> leakCheck() {
        Set<Integer> accounted = new HashSet<>();
        for (RequestState state : live) {
            Arrays.stream(state.table().pages()).forEach(accounted::add);
        }
        if (prefix != null) {
            accounted.addAll(prefix.pages());
        }
        List<Integer> leaked = new ArrayList<>(pools.leakCheck());
        leaked.removeIf(accounted::contains);
        return leaked;
    }

    synchronized long physicalPagesInUse() {
        return pools.physicalPagesInUse();
    }

    synchronized int physicalPagesOnRank(int rank) {
        return pools.rank(rank).usedPages();
    }

    synchronized long peakPhysicalPages() {
        return pools.peakPhysicalPages();
    }

    synchronized long capacityTokens() {
        return pools.capacityTokens();
    }

    synchronized int liveRequests() {
        return live.size();
    }

    synchronized long reservedPages() {
        return reservedPages;
    }

    synchronized int cachedPages() {
        return prefix == null ? 0 : prefix.size();
    }

    /** Physical pages the prefix cache holds on {@code rank}: each cached page's owner's, or every rank's when replicated. */
    synchronized int cachedPagesOnRank(int rank) {
        if (prefix == null) {
            return 0;
        }
        if (pools.layout() == PoolLayout.REPLICATED) {
            return prefix.size();
        }
        int held = 0;
        for (int page : prefix.pages()) {
            if (pools.ownership().owner(page) == rank) {
                held++;
            }
        }
        return held;
    }

    Runnable onPagesFreed(Runnable listener) {
        freeListeners.add(listener);
        return () -> freeListeners.remove(listener);
    }

    int pageListeners() {
        return freeListeners.size();
    }

    /** Tells the listeners pages came back; called with the lock let go. */
    void pagesFreed() {
        freeListeners.forEach(Runnable::run);
    }

    private long evictablePages() {
        return prefix == null ? 0 : prefix.evictablePages();
    }
}
