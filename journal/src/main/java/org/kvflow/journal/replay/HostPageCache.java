package org.kvflow.journal.replay;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.journal.record.PageBackup;

/**
 * A bounded host (L2) page cache keyed by {@code (pageHash, pool)} (contract §11.4): what replay
 * rebuilds and prefix lookups read. A page is usable when both of its pools and its whole parent
 * chain are present. When full, the least recently inserted pages make room. Not thread-safe.
 */
public final class HostPageCache {
    private final long capacityBytes;
    private final LinkedHashMap<String, PageBackup> entries = new LinkedHashMap<>();
    private final Map<String, byte @Nullable []> parents = new HashMap<>();
    private long bytes;
    private long evicted;

    /**
     * An empty cache.
     *
     * @param capacityBytes payload bytes it may hold; the oldest entries go first beyond that
     */
    public HostPageCache(long capacityBytes) {
        if (capacityBytes < 1) {
            throw new IllegalArgumentException("capacityBytes must be >= 1, was " + capacityBytes);
        }
        this.capacityBytes = capacityBytes;
    }

    /** The outcome of {@link #put}. */
    public enum PutResult {
        /** The page was new and is now held. */
        INSERTED,
        /** The same key with equal bytes was held already: nothing changed. */
        SAME_BYTES,
        /** The same key with other bytes was held: nothing changed, the caller reports it. */
        DIFFERENT_BYTES
    }

    /**
     * Inserts a page; the same key with equal bytes is a no-op, with different bytes nothing changes.
     *
     * @param page the page of one pool
     * @return what happened
     */
    public PutResult put(PageBackup page) {
        String key = page.key();
        PageBackup existing = entries.get(key);
        if (existing != null) {
            return existing.payloadBuffer().equals(page.payloadBuffer()) && Arrays.equals(existing.tokenIds(), page.tokenIds())
                    ? PutResult.SAME_BYTES : PutResult.DIFFERENT_BYTES;
        }
        long size = page.payloadLength();
        while (bytes + size > capacityBytes && !entries.isEmpty()) {
            String oldest = entries.keySet().iterator().next();
            PageBackup gone = entries.remove(oldest);
            bytes -= gone.payloadLength();
            evicted++;
            String hash = PageHashChain.key(gone.pageHash());
            if (!entries.containsKey(hash + ":kv") && !entries.containsKey(hash + ":indexer")) {
                parents.remove(hash); // neither pool of the page is left: nor is its link to its parent
            }
        }
        entries.put(key, page);
        parents.put(PageHashChain.key(page.pageHash()), page.parentHash());
        bytes += size;
        return PutResult.INSERTED;
    }

    /**
     * Removes both pools of a page; unknown hashes are ignored.
     *
     * @param pageHash the page's chained hash
     */
    public void evict(byte[] pageHash) {
        String hash = PageHashChain.key(pageHash);
        for (HiCachePool pool : HiCachePool.values()) {
            PageBackup removed = entries.remove(hash + ":" + pool.wireName());
            if (removed != null) {
                bytes -= removed.payloadLength();
            }
        }
        parents.remove(hash);
    }

    /**
     * One pool of a page.
     *
     * @param pageHash the page's chained hash
     * @param pool     the kv or the indexer pool
     * @return the page, or null when not held
     */
    public @Nullable PageBackup get(byte[] pageHash, HiCachePool pool) {
        return entries.get(PageHashChain.key(pageHash) + ":" + pool.wireName());
    }

    /**
     * Whether a page can be loaded back: both pools present and the parent chain usable.
     *
     * @param pageHash the page's chained hash
     * @return true when usable
     */
    public boolean usable(byte[] pageHash) {
        byte[] hash = pageHash;
        for (int depth = 0; depth <= entries.size(); depth++) {
            String key = PageHashChain.key(hash);
            if (!entries.containsKey(key + ":kv") || !entries.containsKey(key + ":indexer")) {
                return false;
            }
            byte[] parent = parents.get(key);
            if (parent == null) {
                return true;
            }
            hash = parent;
        }
        return false; // a cycle: cannot happen with SHA-256 chains, refuse rather than loop
    }

    /**
     * How many leading pages of a prompt's page-hash chain are usable (contract §11.1: stops at the first missing one).
     *
     * @param chain the prompt's page hashes in order
     * @return the usable prefix, in pages
     */
    public int matchPrefix(List<byte[]> chain) {
        int n = 0;
        while (n < chain.size() && usable(chain.get(n))) {
            n++;
        }
        return n;
    }

    /** {@return pages whose link to their parent is kept: never more than the pages held} */
    int parentLinks() {
        return parents.size();
    }

    /**
     * Entries held.
     *
     * @return (page, pool) entries
     */
    public int size() {
        return entries.size();
    }

    /**
     * Payload bytes held.
     *
     * @return bytes
     */
    public long bytes() {
        return bytes;
    }

    /**
     * Entries dropped to stay within capacity.
     *
     * @return entries
     */
    public long evictedForSpace() {
        return evicted;
    }

    /**
     * The keys held, for comparing two replays.
     *
     * @return keys in insertion order
     */
    public List<String> keys() {
        return List.copyOf(entries.keySet());
    }
}
