package org.kvflow.journal.record;

import org.jspecify.annotations.Nullable;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;

/**
 * The fields of a {@code BACKUP} record that come before its payload (contract §11.4): what a
 * {@link PayloadTarget} decides by where the payload goes. Arrays are the decoder's own; a target
 * must not keep them past its call without copying.
 *
 * @param index           the record's queue index
 * @param timestampMillis when it was appended
 * @param pageHash        the page's chained hash
 * @param parentHash      the previous page's hash, or null for position 0
 * @param ownerRank       rank that owned the page when it was backed up
 * @param position        logical page position in its request
 * @param pageSize        tokens in the page
 * @param layerCount      layers in the payload
 * @param pool            the kv or the indexer pool
 * @param payloadLength   payload bytes
 */
public record BackupHeader(long index, long timestampMillis, byte[] pageHash, byte @Nullable [] parentHash, int ownerRank, int position,
                           int pageSize, int layerCount, HiCachePool pool, int payloadLength) {
    /**
     * The page's key form.
     *
     * @return {@code {hash}:{pool}} (contract §11.1)
     */
    public String key() {
        return PageHashChain.key(pageHash) + ":" + pool.wireName();
    }
}
