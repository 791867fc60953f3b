package org.kvflow.operators.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Device prefix cache over whole pages (contract §3.5): chained page hash → logical page. A match
 * walks the chain and stops at the first missing page. Matched pages are locked while a request
 * uses them; unlocked pages are evictable, least recently used first (an entry becomes most
 * recent when it is inserted or unlocked). Pages whose bytes were lost (a rank process died) are
 * forgotten: never matched again, freed at once or when their last lock goes. Every operation
 * except {@link #forget} is O(1) per page. Guarded by its {@link KvGroup}.
 */
final class PrefixCache {
    private final Map<String, Entry> byKey = new HashMap<>();
    /** Unlocked entries, least recently used first. */
    private final LinkedHashMap<String, Entry> evictable = new LinkedHashMap<>();

    private static final class Entry {
        final int page;
        int locks;
        /** Forgotten while locked: no longer matched, freed when the last lock goes. */
        boolean stale;

        Entry(int page) {
            this.page = page;
        }
    }

    /** Pages of the longest cached prefix of {@code keys}, at most {@code maxPages}; no locks taken. */
    int[] match(List<String> keys, int maxPages) {
        int n = 0;
        int limit = Math.min(maxPages, keys.size());
        while (n < limit && matchable(keys.get(n))) {
            n++;
        }
        int[] pages = new int[n];
        for (int i = 0; i < n; i++) {
            pages[i] = byKey.get(keys.get(i)).page;
        }
        return pages;
    }

    /** Whether {@code key} is cached and not forgotten (one lookup). */
    private boolean matchable(String key) {
        Entry e = byKey.get(key);
        return e != null && !e.stale;
    }

    /** Locks the first {@code count} pages of {@code keys} (a prefix {@link #match} returned). */
    void lock(List<String> keys, int count) {
        for (int i = 0; i < count; i++) {
            String key = keys.get(i);
            if (byKey.get(key).locks++ == 0) {
                evictable.remove(key);
            }
        }
    }

    /** Unlocks the first {@code count} pages of {@code keys}; returns the forgotten pages whose last lock this was, to free. */
    int[] unlock(List<String> keys, int count) {
        List<Integer> free = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String key = keys.get(i);
            Entry e = byKey.get(key);
            if (--e.locks == 0) {
                if (e.stale) {
                    byKey.remove(key);
                    free.add(e.page);
                } else {
                    evictable.put(key, e);
                }
            }
        }
        return free.stream().mapToInt(Integer::intValue).toArray();
    }

    /**
     * Forgets every cached page that {@code lost} names: unlocked ones are removed and returned to
     * free now; locked ones are no longer matched and come back from {@link #unlock}.
     */
    int[] forget(java.util.function.IntPredicate lost) {
        List<Integer> free = new ArrayList<>();
        for (Iterator<Map.Entry<String, Entry>> it = byKey.entrySet().iterator(); it.hasNext(); ) {
            Map.Entry<String, Entry> cached = it.next();
            Entry e = cached.getValue();
            if (!e.stale && lost.test(e.page)) {
                if (e.locks == 0) {
                    it.remove();
                    evictable.remove(cached.getKey());
                    free.add(e.page);
                } else {
                    e.stale = true;
                }
            }
        }
        return free.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Adds a page under {@code key}; false (and nothing changes) when the key is cached already, forgotten or not. */
    boolean insert(String key, int page) {
        if (byKey.containsKey(key)) {
            return false;
        }
        Entry e = new Entry(page);
        byKey.put(key, e);
        evictable.put(key, e);
        return true;
    }

    /** Pages that eviction could free now. */
    int evictablePages() {
        return evictable.size();
    }

    /** Removes up to {@code count} unlocked pages, least recently used first, tells {@code evicted} each one's key, and returns the pages. */
    int[] evict(int count, Consumer<String> evicted) {
        int n = Math.min(count, evictable.size());
        int[] pages = new int[n];
        Iterator<Map.Entry<String, Entry>> it = evictable.entrySet().iterator();
        for (int i = 0; i < n; i++) {
            Map.Entry<String, Entry> oldest = it.next();
            it.remove();
            byKey.remove(oldest.getKey());
            pages[i] = oldest.getValue().page;
            evicted.accept(oldest.getKey());
        }
        return pages;
    }

    /** Every cached page id. */
    List<Integer> pages() {
        List<Integer> pages = new ArrayList<>(byKey.size());
        byKey.values().forEach(e -> pages.add(e.page));
        return pages;
    }

    int size() {
        return byKey.size();
    }
}
