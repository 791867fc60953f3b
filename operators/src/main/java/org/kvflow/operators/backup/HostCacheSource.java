package org.kvflow.operators.backup;

import java.util.List;
import java.util.Objects;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.operators.group.HostPrefixSource;

/** A replayed {@link HostPageCache} as the pipeline's host prefix source. Guarded by the pipeline's group. */
public final class HostCacheSource implements HostPrefixSource {
    private final HostPageCache cache;

    /**

     * A host prefix source over a replayed cache.

     *

     * @param cache the replayed host cache

     */
    public HostCacheSource(HostPageCache cache) {
        this.cache = Objects.requireNonNull(cache, "cache");
    }

    @Override
    public synchronized int loadablePages(List<byte[]> chain, int fromPage) {
        int n = 0;
        while (fromPage + n < chain.size() && cache.usable(chain.get(fromPage + n))) {
            n++;
        }
        return n;
    }

    @Override
    public synchronized byte[] payload(byte[] pageHash, HiCachePool pool) {
        PageBackup page = cache.get(pageHash, pool);
        if (page == null) {
            throw new IllegalStateException("host page " + org.kvflow.core.hicache.PageHashChain.key(pageHash) + ":" + pool.wireName()
                    + " left the host cache between admission and load");
        }
        return page.payload();
    }
}
