package org.kvflow.journal.record;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;

/**
 * One backed-up page of one pool (SPEC §11.4 {@code BACKUP}): its chained hash and parent hash
 * (null for position 0), the page's token ids, where it was owned when backed up, and the page for
 * all layers of the pool, layer-major ({@code [L][page block]}). Immutable: the hashes and token
 * ids are copied; the payload array (megabytes for a page of every layer) is taken over, not
 * copied, so the caller must not change it after handing it in. {@link #payload()} returns a copy,
 * {@link #payloadBuffer()} a read-only view.
 *
 * @param ownerRank rank that owned the page when it was backed up (informational: owners are
 *                  recomputed from new page ids after a reload, SPEC §11.3)
 * @param position  logical page position of the page in its request
 */
public record PageBackup(byte[] pageHash, byte @Nullable [] parentHash, int[] tokenIds, int ownerRank, int position,
                         int layerCount, HiCachePool pool, byte[] payload) {
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

    @Override public byte[] pageHash() { return pageHash.clone(); }
    @Override public byte @Nullable [] parentHash() { return parentHash == null ? null : parentHash.clone(); }
    @Override public int[] tokenIds() { return tokenIds.clone(); }
    @Override public byte[] payload() { return payload.clone(); }

    /** The payload as a read-only view, without copying it. */
    public ByteBuffer payloadBuffer() {
        return ByteBuffer.wrap(payload).asReadOnlyBuffer();
    }

    /** Payload bytes, without copying the payload. */
    public int payloadLength() {
        return payload.length;
    }

    /** The page's key form ({@code {hash}:{pool}}, SPEC §11.1). */
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
