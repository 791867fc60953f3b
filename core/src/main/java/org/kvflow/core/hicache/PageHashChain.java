package org.kvflow.core.hicache;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * HiCache page keys (contract §11.1): {@code h_0 = SHA256(LE32 tokens of page 0)}, {@code h_k =
 * SHA256(h_{k-1} ‖ LE32 tokens of page k)}. Only full pages are hashed, so a prefix hashes the
 * same wherever the prompt was cut. Thread-safe.
 */
public final class PageHashChain {
    /** Bytes of one SHA-256 page hash. */
    public static final int HASH_BYTES = 32;

    private PageHashChain() {}

    /**
     * Hash of one page given its parent's hash.
     *
     * @param parent   the previous page's hash, or {@code null} for position 0
     * @param tokenIds the prompt
     * @param offset   index of the page's first token in {@code tokenIds}
     * @param pageSize tokens per page; {@code tokenIds[offset .. offset+pageSize)} must exist
     */
    public static byte[] pageHash(byte @Nullable [] parent, int[] tokenIds, int offset, int pageSize) {
        MessageDigest sha = sha256();
        if (parent != null) {
            sha.update(parent);
        }
        ByteBuffer le = ByteBuffer.allocate(4 * pageSize).order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < pageSize; i++) {
            int token = tokenIds[offset + i];
            if (token < 0) {
                throw new IllegalArgumentException("token id at " + (offset + i) + " is negative: " + token);
            }
            le.putInt(token);
        }
        sha.update(le.array());
        return sha.digest();
    }

    /** The chained hashes of every full page of {@code tokenIds}, in position order. */
    public static List<byte[]> fullPageHashes(int[] tokenIds, int pageSize) {
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
        }
        int pages = tokenIds.length / pageSize;
        List<byte[]> hashes = new ArrayList<>(pages);
        byte[] parent = null;
        for (int k = 0; k < pages; k++) {
            parent = pageHash(parent, tokenIds, k * pageSize, pageSize);
            hashes.add(parent);
        }
        return hashes;
    }

    /** The key form of a hash: 64 lowercase hex characters. */
    public static String key(byte[] hash) {
        return HexFormat.of().formatHex(hash);
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every JRE provides SHA-256", e);
        }
    }
}
