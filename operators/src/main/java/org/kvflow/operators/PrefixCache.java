package org.kvflow.operators;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Device prefix cache over whole pages (SPEC §3.5): chained page hash → logical page. A match
 * walks the chain and stops at the first missing page. Matched pages are locked while a request
 * uses them; unlocked pages are evictable, least recently used first. Guarded by its {@link KvGroup}.
 */
final class PrefixCache {
    private final Map<String, Entry> byKey = new HashMap<>();
    private long clock;
    private int locked;

    private static final class Entry {
        final String key;
        final int page;
        int locks;
        long lastUse;

        Entry(String key, int page) {
            this.key = key;
            this.page = page;
        }
    }

    /** Pages of the longest cached prefix of {@code keys}, at most {@code maxPages}; no locks taken. */
    int[] match(List<String> keys, int maxPages) {
        List<Integer> pages = new ArrayList<>();
        for (int i = 0; i < Math.min(maxPages, keys.size()); i++) {
            Entry e = byKey.get(keys.get(i));
            if (e == null) {
                break;
            }
            pages.add(e.page);
        }
        return pages.stream().mapToInt(Integer::intValue).toArray();
    }

    /** Locks the first {@code count} pages of {@code keys} (a prefix {@link #match} returned). */
    void lock(List<String> keys, int count) {
        clock++;
        for (int i = 0; i < count; i++) {
            Entry e = byKey.get(keys.get(i));
            if (e.locks++ == 0) {
                locked++;
            }
            e.lastUse = clock;
        }
    }

    void unlock(List<String> keys, int count) {
        for (int i = 0; i < count; i++) {
            Entry e = byKey.get(keys.get(i));
            if (--e.locks == 0) {
                locked--;
            }
        }
    }

    /** Adds a page under {@code key}; false (and nothing changes) when the key is cached already. */
    boolean insert(String key, int page) {
        if (byKey.containsKey(key)) {
            return false;
        }
        Entry e = new Entry(key, page);
        e.lastUse = ++clock;
        byKey.put(key, e);
        return true;
    }

    /** Pages that eviction could free now. */
    int evictablePages() {
        return byKey.size() - locked;
    }

    /** Removes up to {@code count} unlocked pages, least recently used first, and returns them. */
    int[] evict(int count) {
        List<Entry> candidates = new ArrayList<>();
        for (Entry e : byKey.values()) {
            if (e.locks == 0) {
                candidates.add(e);
            }
        }
        candidates.sort((a, b) -> Long.compare(a.lastUse, b.lastUse));
        int n = Math.min(count, candidates.size());
        int[] pages = new int[n];
        for (int i = 0; i < n; i++) {
            byKey.remove(candidates.get(i).key);
            pages[i] = candidates.get(i).page;
        }
        return pages;
    }

    /** Every cached page id. */
    List<Integer> pages() {
        return byKey.values().stream().map(e -> e.page).toList();
    }

    int size() {
        return byKey.size();
    }
}
