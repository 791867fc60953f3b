package org.kvflow.core.pool;

import java.util.Objects;
import org.kvflow.core.model.KvLayout;

/**
 * Per-rank pool capacity, derived from a byte budget in this one place (contract §3.4): {@code
 * tokensPerRank = B div bytesPerTokenAllLayers}, {@code pagesPerRank = tokensPerRank div ps}.
 * Everything else (admission, reports) reads page and token counts from here and never
 * re-estimates bytes (contract §6.3a).
 *
 * @param pageSize      tokens per page
 * @param pagesPerRank  physical pages each rank owns, {@code N}
 * @param budgetBytes   the per-rank pool budget it came from, or 0 for a pool sized in pages
 * @param bytesPerToken bytes of one token over all layers and pools, or 0 for a pool sized in pages
 */
public record PoolCapacity(int pageSize, int pagesPerRank, long budgetBytes, long bytesPerToken) {

    public PoolCapacity {
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
        }
        if (pagesPerRank < 1) {
            throw new IllegalArgumentException("pagesPerRank must be >= 1, was " + pagesPerRank
                    + " (budget " + budgetBytes + " B at " + bytesPerToken + " B/token, page size " + pageSize + ")");
        }
    }

    /** Capacity of a per-rank pool of {@code budgetBytes} holding {@code layout} rows. */
    public static PoolCapacity fromBudget(long budgetBytes, KvLayout layout, int pageSize) {
        Objects.requireNonNull(layout, "layout");
        if (budgetBytes < 0) {
            throw new IllegalArgumentException("budgetBytes must be >= 0, was " + budgetBytes);
        }
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
        }
        long perToken = layout.bytesPerTokenAllLayers();
        long tokens = budgetBytes / perToken;
        long pages = tokens / pageSize;
        if (pages > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("budget " + budgetBytes + " B gives " + pages
                    + " pages per rank; page ids are 31-bit");
        }
        return new PoolCapacity(pageSize, (int) pages, budgetBytes, perToken);
    }

    /** A pool sized directly in pages (tests, toy models): no byte budget behind it. */
    public static PoolCapacity ofPages(int pagesPerRank, int pageSize) {
        return new PoolCapacity(pageSize, pagesPerRank, 0, 0);
    }

    /** {@code pagesPerRank·ps}. */
    public long tokensPerRank() {
        return (long) pagesPerRank * pageSize;
    }

    /** Logical page ids of a CP group, padding page included: {@code cp·N} shared, {@code N} replicated. */
    public long logicalPages(PoolLayout layout, int cpSize) {
        checkCp(cpSize);
        return layout == PoolLayout.SHARED ? (long) cpSize * pagesPerRank : pagesPerRank;
    }

    /** Logical pages that can hold KV: {@link #logicalPages} minus the reserved padding page 0. */
    public long usableLogicalPages(PoolLayout layout, int cpSize) {
        return logicalPages(layout, cpSize) - 1;
    }

    /** Logical tokens that can hold KV, padding page excluded. */
    public long usableLogicalTokens(PoolLayout layout, int cpSize) {
        return usableLogicalPages(layout, cpSize) * pageSize;
    }

    /** contract §3.4 capacity ratio: {@code (cp·N − 1) / (N − 1)}; NaN when {@code N = 1}. */
    public double capacityRatio(int cpSize) {
        long replicated = usableLogicalPages(PoolLayout.REPLICATED, cpSize);
        return replicated == 0 ? Double.NaN
                : (double) usableLogicalPages(PoolLayout.SHARED, cpSize) / replicated;
    }

    private static void checkCp(int cpSize) {
        if (cpSize < 1) {
            throw new IllegalArgumentException("cpSize must be >= 1, was " + cpSize);
        }
    }
}
