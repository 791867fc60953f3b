package org.kvflow.operators.group;

import java.util.List;
import org.kvflow.core.hicache.HiCachePool;

/**
 * A host (L2) page cache the pipeline can load prefix pages from instead of recomputing them
 * (contract §6.2 host hits, §11.3 load): the replayed journal, for example.
 */
public interface HostPrefixSource {
    /**
     * How many consecutive pages of a prompt's page-hash chain, starting at position
     * {@code fromPage}, can be loaded (both pools and every parent present).
     *
     * @param chain    the prompt's chained page hashes, by position
     * @param fromPage the first position to look at
     * @return how many pages from there can be loaded
     */
    int loadablePages(List<byte[]> chain, int fromPage);

    /**
     * The page of {@code pool} for all layers, layer-major ({@code [L][page block]}, contract §11.4).
     *
     * @param pageHash the page's chained hash
     * @param pool     the kv or the indexer pool
     * @return the payload
     */
    byte[] payload(byte[] pageHash, HiCachePool pool);
}
