package org.kvflow.core.ownership;

import java.util.Arrays;
import org.kvflow.core.pool.KvPools;

/**
 * A request's page table {@code P[0..n-1]} of logical page ids, {@code n = ceil(seqLen/ps)}
 * (contract §4.3). Position {@code i} holds request tokens {@code [i·ps, (i+1)·ps)} and lives on
 * {@code (owner(P[i]), localPage(P[i]))}. Extending first fills the partially filled last page,
 * then draws whole pages (contract §3.5 {@code alloc_extend}). Not thread-safe.
 */
public final class RequestPageTable {
    private final int pageSize;
    private int[] pages = new int[4];
    private int pageCount;
    private long seqLen;

    public RequestPageTable(int pageSize) {
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
        }
        this.pageSize = pageSize;
    }

    /** {@code ceil(tokens / ps)}. */
    public static long pagesFor(long tokens, int pageSize) {
        return (tokens + pageSize - 1) / pageSize;
    }

    public int pageSize() {
        return pageSize;
    }

    public long seqLen() {
        return seqLen;
    }

    public int pageCount() {
        return pageCount;
    }

    /** Logical page id at position {@code pos}. */
    public int page(int pos) {
        if (pos < 0 || pos >= pageCount) {
            throw new IndexOutOfBoundsException("page position " + pos + " outside [0, " + pageCount + ")");
        }
        return pages[pos];
    }

    /** A copy of {@code P[0..n-1]}. */
    public int[] pages() {
        return Arrays.copyOf(pages, pageCount);
    }

    /** Logical KV loc of request token {@code t}: {@code P[t div ps]·ps + t mod ps}. */
    public long loc(long token) {
        if (token < 0 || token >= seqLen) {
            throw new IndexOutOfBoundsException("token " + token + " outside [0, " + seqLen + ")");
        }
        return (long) pages[(int) (token / pageSize)] * pageSize + token % pageSize;
    }

    /**
     * Adds {@code tokens} to the request, allocating only the pages the partial last page cannot
     * hold.
     *
     * @return the newly allocated page ids, in position order
     * @throws org.kvflow.core.pool.PoolExhaustedException if the pools cannot hold them (nothing changes)
     */
    public int[] extend(long tokens, KvPools pools) {
        if (tokens < 0) {
            throw new IllegalArgumentException("tokens must be >= 0, was " + tokens);
        }
        if (pools.pageSize() != pageSize) {
            throw new IllegalArgumentException("pool page size " + pools.pageSize() + " != table page size " + pageSize);
        }
        long needed = pagesFor(seqLen + tokens, pageSize) - pageCount;
        int[] fresh = pools.allocate(Math.toIntExact(needed));
        if (pageCount + fresh.length > pages.length) {
            pages = Arrays.copyOf(pages, Math.max(pages.length * 2, pageCount + fresh.length));
        }
        System.arraycopy(fresh, 0, pages, pageCount, fresh.length);
        pageCount += fresh.length;
        seqLen += tokens;
        return fresh;
    }

    /**
     * Starts the table with pages that are already allocated and filled (a prefix-cache hit):
     * {@code pages.length} whole pages, {@code pages.length·ps} tokens. Allocates nothing.
     *
     * @throws IllegalStateException if the table is not empty
     */
    public void adoptPrefix(int[] prefixPages) {
        if (pageCount != 0) {
            throw new IllegalStateException("a prefix can only start an empty table; this one has " + pageCount + " pages");
        }
        if (prefixPages.length > pages.length) {
            pages = Arrays.copyOf(pages, prefixPages.length);
        }
        System.arraycopy(prefixPages, 0, pages, 0, prefixPages.length);
        pageCount = prefixPages.length;
        seqLen = (long) prefixPages.length * pageSize;
    }

    /** Frees every page of the request and empties the table. */
    public void release(KvPools pools) {
        pools.free(pages());
        pageCount = 0;
        seqLen = 0;
    }
}
