package org.kvflow.operators.group;

import java.util.LinkedHashMap;
import java.util.List;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;

/**
 * A host (L2) tier that plans pages only: the device prefix cache's evicted pages go here (write
 * back), least recently used first out when it is full, and a later request loads the pages that
 * follow its device prefix from here instead of computing them. It holds page keys, not bytes, so a
 * group with it must plan pages only; a group with KV bytes loads host pages from a replayed
 * journal instead. Thread-safe.
 */
public final class HostPageTier implements HostPrefixSource {
    private final int capacityPages;
    private final LinkedHashMap<String, Boolean> pages = new LinkedHashMap<>(16, 0.75f, true);
    private long spilled;

    /**
     * An empty tier.
     *
     * @param capacityPages pages it holds at most
     * @throws IllegalArgumentException for a capacity below 1
     */
    public HostPageTier(int capacityPages) {
        if (capacityPages < 1) {
            throw new IllegalArgumentException("a host page tier holds at least one page, was " + capacityPages);
        }
        this.capacityPages = capacityPages;
    }

    /** Takes a page the device cache evicted, pushing out the least recently used when full. */
    synchronized void spill(String pageKey) {
        pages.put(pageKey, Boolean.TRUE);
        spilled++;
        if (pages.size() > capacityPages) {
            pages.pollFirstEntry();
        }
    }

    @Override
    public synchronized int loadablePages(List<byte[]> chain, int fromPage) {
        int n = 0;
        while (fromPage + n < chain.size() && pages.get(PageHashChain.key(chain.get(fromPage + n))) != null) { // get: a use
            n++;
        }
        return n;
    }

    /**
     * Never called: a pages-only group loads no bytes.
     *
     * @throws IllegalStateException always
     */
    @Override
    public byte[] payload(byte[] pageHash, HiCachePool pool) {
        throw new IllegalStateException("a host page tier holds page keys, not bytes: page " + PageHashChain.key(pageHash));
    }

    /** {@return pages it holds now} */
    public synchronized int size() {
        return pages.size();
    }

    /** {@return pages the device cache has spilled into it so far} */
    public synchronized long spilledPages() {
        return spilled;
    }
}
