package org.kvflow.journal.record;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;

/**
 * One backed-up page of one pool (contract §11.4 {@code BACKUP}): its chained hash and parent hash
 * (null for position 0), the page's token ids, where it was owned when backed up, and the page for
 * all layers of the pool, layer-major ({@code [L][page block]}). Immutable: the hashes and token
 * ids are copied; the payload array (megabytes for a page of every layer) is taken over, not
 * copied, so the caller must not change it after handing it in. {@link #payload()} returns a copy,
 * {@link #payloadBuffer()} a read-only view.
 *
 * @param pageHash   the page's chained hash (contract §11.1, 32 bytes)
 * @param parentHash the previous page's hash, or null for position 0
 * @param tokenIds   the page's token ids
 * @param layerCount layers in the payload
 * @param pool       the kv or the indexer pool
 * @param payload    the page of every layer, layer-major (taken over, not copied)
 * @param ownerRank rank that owned the page when it was backed up (informational: owners are
 *                  recomputed from new page ids after a reload, contract §11.3)
 * @param position  logical page position of the page in its request
 */
public record PageBackup(byte[] pageHash, byte @Nullable [] parentHash, int[] tokenIds, int ownerRank, int position,
                         int layerCount, HiCachePool pool, byte[] payload) {
    /** Checks the hashes, the token ids and the counts; copies the hashes and token ids. */
    public PageBackup {
        Objects.requireNonNull(pool, "pool");
        checkHash("pageHash", pageHash);
        if (parentHash != null) {
            checkHash("parentHash", parentHash);
        }
        if (tokenIds.length == 0) {
            throw new IllegalArgumentException("a page has at least one token");
        }
        if (layerCount < 1 || ownerRank < 0 || position < 0) {
            throw new IllegalArgumentException("layerCount, ownerRank and position must be >= 1, 0, 0; were "
                    + layerCount + ", " + ownerRank + ", " + position);
        }
        pageHash = pageHash.clone();
        parentHash = parentHash == null ? null : parentHash.clone();
        tokenIds = tokenIds.clone();
        Objects.requireNonNull(payload, "payload");
    }

    private static void checkHash(String field, byte[] hash) {
        if (hash.length != PageHashChain.HASH_BYTES) {
            throw new IllegalArgumentException(field + " must be " + PageHashChain.HASH_BYTES + " bytes, was " + hash.length);
        }
    }

    /**
     * The page's chained hash.
     *
     * @return a copy
     */
    @Override public byte[] pageHash() { return pageHash.clone(); }

    /**
     * The parent page's hash.
     *
     * @return a copy, or null for position 0
     */
    @Override public byte @Nullable [] parentHash() { return parentHash == null ? null : parentHash.clone(); }

    /**
     * The page's token ids.
     *
     * @return a copy
     */
    @Override public int[] tokenIds() { return tokenIds.clone(); }

    /**
     * The page of every layer.
     *
     * @return a copy (see {@link #payloadBuffer()} for a view)
     */
    @Override public byte[] payload() { return payload.clone(); }

    /**
     * The payload without copying it.
     *
     * @return a read-only view
     */
    public ByteBuffer payloadBuffer() {
        return ByteBuffer.wrap(payload).asReadOnlyBuffer();
    }

    /**
     * The payload's size, without copying it.
     *
     * @return bytes
     */
    public int payloadLength() {
        return payload.length;
    }

    /**
     * The page's key form.
     *
     * @return {@code {hash}:{pool}} (contract §11.1)
     */
    public String key() {
        return PageHashChain.key(pageHash) + ":" + pool.wireName();
    }

    /** Payload bytes without copying, for encoders in this package. */
    byte[] payloadView() {
        return payload;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof PageBackup b && Arrays.equals(pageHash, b.pageHash) && Arrays.equals(parentHash, b.parentHash)
                && Arrays.equals(tokenIds, b.tokenIds) && ownerRank == b.ownerRank && position == b.position
                && layerCount == b.layerCount && pool == b.pool && Arrays.equals(payload, b.payload);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(pageHash) * 31 + pool.hashCode();
    }

    @Override
    public String toString() {
        return "PageBackup[" + key() + ", pos " + position + ", rank " + ownerRank + ", " + payload.length + " B]";
    }
}
