package org.kvflow.pages;

import org.kvflow.core.hicache.HiCachePool;

/** The two page pools of an NSA/MLA layer (contract §3.2, §3.3): each layer keeps one buffer of each. */
public enum KvComponent {
    /** MLA rows: the compressed latent and the rope part of each token. */
    MLA,
    /** Indexer pages: each token's fp8 index key, then the page's scale region. */
    INDEX;

    /**
     * The buffers a HiCache pool's pages live in.
     *
     * @param pool the kv or the indexer pool
     * @return {@link #MLA} for kv, {@link #INDEX} for the indexer
     */
    public static KvComponent of(HiCachePool pool) {
        return pool == HiCachePool.KV ? MLA : INDEX;
    }
}
