package org.kvflow.operators.group;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.pool.KvPools;

/**
 * The device prefix cache as a group uses it (contract §3.5, §6.2): which cached pages a request
 * may reuse (all but its last token stay to compute), keeping a finished request's full pages,
 * forgetting pages whose bytes were lost, and a warm start's fill. Pages it gives up go back to
 * the pools. Not thread-safe: the {@link PageAccounting} that owns it guards it with its lock.
 */
final class PrefixIndex {
    private final PrefixCache cache = new PrefixCache();
    private final KvPools pools;
    private final int pageSize;
    /** Where evicted pages go: a host tier's write-back, or nowhere. */
    private final Consumer<String> spill;
    private long evicted;

    PrefixIndex(KvPools pools, @Nullable HostPageTier tier) {
        this.pools = pools;
        this.pageSize = pools.capacity().pageSize();
        this.spill = tier == null ? key -> { } : tier::spill;
    }

    /** Leading pages of {@code state}'s prompt the cache holds and it may reuse. */
    int matchPages(RequestState state) {
        return cache.match(state.pageKeys(), reusablePages(state)).length;
    }

    /** The pages {@link #matchPages} counts, locked for {@code state}. */
    int[] lock(RequestState state) {
        int[] prefix = cache.match(state.pageKeys(), reusablePages(state));
        cache.lock(state.pageKeys(), prefix.length);
        return prefix;
    }

    /** Unlocks the first {@code count} pages {@link #lock} locked for {@code state}, freeing forgotten ones. */
    void unlock(RequestState state, int count) {
        pools.free(cache.unlock(state.pageKeys(), count));
    }

    /** Keeps {@code page}, position {@code pos} of {@code state}'s prompt; false when the key is cached already. */
    boolean keep(RequestState state, int pos, int page) {
        return pos < state.pageKeys().size() && cache.insert(state.pageKeys().get(pos), page);
    }

    /** Evicts unlocked pages, least recently used first, until {@code shortBy} more are free (if it can); a host tier takes them. */
    void evict(long shortBy) {
        if (shortBy > 0) {
            int[] pages = cache.evict((int) Math.min(shortBy, Integer.MAX_VALUE), spill);
            evicted += pages.length;
            pools.free(pages);
        }
    }

    /** {@return pages pushed out to make room for others, since the index was made} */
    long evictedPages() {
        return evicted;
    }

    /** Drops every unlocked page, telling no host tier: the pages are given up, not pushed out by others. */
    void evictAll() {
        pools.free(cache.evict(Integer.MAX_VALUE, key -> { }));
    }

    /** Forgets every cached page {@code lost} names (its bytes are gone); unlocked ones are freed now. */
    void forget(IntPredicate lost) {
        pools.free(cache.forget(lost));
    }

    /** {@return unlocked cached pages} */
    int evictablePages() {
        return cache.evictablePages();
    }

    /** {@return cached pages} */
    int size() {
        return cache.size();
    }

    /** {@return every cached page} */
    List<Integer> pages() {
        return cache.pages();
    }

    /** See {@link KvGroup#warmPages}. */
    KvGroup.WarmPages warmPages(List<byte[]> pageHashes) {
        List<String> keys = pageHashes.stream().map(PageHashChain::key).toList();
        int cached = cache.match(keys, keys.size()).length;
        long shortBy = keys.size() - cached - pools.freePages();
        if (shortBy > 0) {
            evict(shortBy);
            cached = cache.match(keys, keys.size()).length;
        }
        // a prompt longer than the pools can hold restores the prefix that fits
        return new KvGroup.WarmPages(cached, pools.allocate((int) Math.min(keys.size() - cached, pools.freePages())));
    }

    /** See {@link KvGroup#cacheRestored}. */
    int cacheRestored(List<byte[]> pageHashes, KvGroup.WarmPages warm, int restored) {
        int[] pages = warm.pages();
        List<Integer> toFree = new ArrayList<>();
        for (int i = 0; i < pages.length; i++) {
            // a key cached meanwhile keeps its own page: the chain stays whole, this copy goes back
            if (i >= restored || !cache.insert(PageHashChain.key(pageHashes.get(warm.cached() + i)), pages[i])) {
                toFree.add(pages[i]);
            }
        }
        pools.free(toFree.stream().mapToInt(Integer::intValue).toArray());
        return warm.cached() + restored;
    }

    private int reusablePages(RequestState state) {
        return (state.request().seqLen() - 1) / pageSize;
    }
}
