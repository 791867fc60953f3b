package org.kvflow.core.pool;

import java.util.BitSet;

/**
 * Occupancy of one rank's physical pages {@code 0 .. pagesPerRank-1}. Under shared KV a logical
 * page occupies one physical page on its owner; under replication every rank occupies it. Not
 * thread-safe.
 */
public final class RankPool {
    private final int rank;
    private final int pagesPerRank;
    private final BitSet used;
    private int usedCount;

    public RankPool(int rank, int pagesPerRank) {
        if (rank < 0) {
            throw new IllegalArgumentException("rank must be >= 0, was " + rank);
        }
        if (pagesPerRank < 1) {
            throw new IllegalArgumentException("pagesPerRank must be >= 1, was " + pagesPerRank);
        }
        this.rank = rank;
        this.pagesPerRank = pagesPerRank;
        this.used = new BitSet(pagesPerRank);
    }

    public int rank() {
        return rank;
    }

    public int pagesPerRank() {
        return pagesPerRank;
    }

    /** Physical pages holding KV now. */
    public int usedPages() {
        return usedCount;
    }

    public boolean isUsed(int localPage) {
        return localPage >= 0 && localPage < pagesPerRank && used.get(localPage);
    }

    void occupy(int localPage) {
        checkRange(localPage);
        if (used.get(localPage)) {
            throw new IllegalStateException("rank " + rank + ": physical page " + localPage + " is already occupied");
        }
        used.set(localPage);
        usedCount++;
    }

    void release(int localPage) {
        checkRange(localPage);
        if (!used.get(localPage)) {
            throw new DoubleFreeException("rank " + rank, localPage);
        }
        used.clear(localPage);
        usedCount--;
    }

    private void checkRange(int localPage) {
        if (localPage < 0 || localPage >= pagesPerRank) {
            throw new ForeignPageException("rank " + rank, localPage, 0, pagesPerRank - 1);
        }
    }
}
