package org.kvflow.core.ownership;

/**
 * Deterministic page ownership and address mapping of contract §4.1: logical page {@code p} lives on
 * rank {@code p mod cp} at physical page {@code p div cp}. A pure function of the allocator's page
 * id, independent of request length, chunking, split mode and batch composition (contract §4.2).
 * Immutable and thread-safe.
 */
public record OwnershipMap(int cpSize, int pageSize) {

    public OwnershipMap {
        if (cpSize < 1) {
            throw new IllegalArgumentException("cpSize must be >= 1, was " + cpSize);
        }
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
        }
    }

    /** {@code owner(p) = p mod cp}. */
    public int owner(long pageId) {
        checkNonNegative("pageId", pageId);
        return (int) (pageId % cpSize);
    }

    /** {@code localPage(p) = p div cp}: the physical page on the owner rank. */
    public long localPage(long pageId) {
        checkNonNegative("pageId", pageId);
        return pageId / cpSize;
    }

    /** Inverse of ({@link #owner}, {@link #localPage}): {@code p = localPage·cp + owner}. */
    public long pageId(int owner, long localPage) {
        if (owner < 0 || owner >= cpSize) {
            throw new IllegalArgumentException("owner must be in [0, " + cpSize + "), was " + owner);
        }
        checkNonNegative("localPage", localPage);
        return Math.addExact(Math.multiplyExact(localPage, (long) cpSize), owner);
    }

    /** Logical page of a KV loc: {@code loc div ps}. */
    public long pageOfLoc(long loc) {
        checkNonNegative("loc", loc);
        return loc / pageSize;
    }

    /** Offset of a loc inside its page: {@code loc mod ps}. */
    public int offsetOfLoc(long loc) {
        checkNonNegative("loc", loc);
        return (int) (loc % pageSize);
    }

    /** {@code ownerOfLoc = (loc div ps) mod cp}. */
    public int ownerOfLoc(long loc) {
        return owner(pageOfLoc(loc));
    }

    /** Row on the owner rank: {@code localPage(loc div ps)·ps + loc mod ps}. */
    public long localRow(long loc) {
        return localPage(pageOfLoc(loc)) * pageSize + offsetOfLoc(loc);
    }

    /**
     * Rank-major address in one flat space over all ranks' pages (contract §4.1):
     * {@code owner·pagesPerRank·ps + localPage·ps + loc mod ps}.
     *
     * @throws ArithmeticException if the row does not fit a signed 64-bit integer
     */
    public long sharedRow(long loc, long pagesPerRank) {
        checkNonNegative("pagesPerRank", pagesPerRank);
        long rankBase = Math.multiplyExact(Math.multiplyExact((long) ownerOfLoc(loc), pagesPerRank), (long) pageSize);
        return Math.addExact(rankBase, localRow(loc));
    }

    private static void checkNonNegative(String what, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(what + " must be >= 0, was " + value);
        }
    }
}
