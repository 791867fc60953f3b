package org.kvflow.core.pool;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.kvflow.core.ownership.OwnershipMap;

/**
 * The persistent KV storage of one CP group: the logical allocator (identical on every rank) and
 * each rank's physical pool. {@link PoolLayout#SHARED} places logical page {@code p} on
 * {@code (owner(p), localPage(p))} only; {@link PoolLayout#REPLICATED} places it on every rank at
 * physical page {@code p}. Page counts are exact: each call either succeeds whole or changes nothing.
 * Not thread-safe.
 */
public final class KvPools {
    private final PoolLayout layout;
    private final PoolCapacity capacity;
    private final OwnershipMap ownership;
    private final PageAllocator allocator;
    private final List<RankPool> ranks;
    private long physicalInUse;
    private long peakPhysical;

    private KvPools(PoolLayout layout, int cpSize, PoolCapacity capacity) {
        this.layout = Objects.requireNonNull(layout, "layout");
        this.capacity = Objects.requireNonNull(capacity, "capacity");
        this.ownership = new OwnershipMap(cpSize, capacity.pageSize());
        long logical = capacity.logicalPages(layout, cpSize);
        if (logical > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(cpSize + " x " + capacity.pagesPerRank()
                    + " logical pages exceed the 31-bit page id space");
        }
        this.allocator = new PageAllocator(layout.name().toLowerCase() + " pool", (int) logical, capacity.pageSize());
        List<RankPool> pools = new ArrayList<>(cpSize);
        for (int r = 0; r < cpSize; r++) {
            pools.add(new RankPool(r, capacity.pagesPerRank()));
        }
        this.ranks = List.copyOf(pools);
    }

    /** Shared-KV pools: {@code cp·N} logical pages, each stored once. */
    public static KvPools shared(int cpSize, PoolCapacity capacity) {
        return new KvPools(PoolLayout.SHARED, cpSize, capacity);
    }

    /** Replicated pools (plain CP): {@code N} logical pages, each stored on every rank. */
    public static KvPools replicated(int cpSize, PoolCapacity capacity) {
        return new KvPools(PoolLayout.REPLICATED, cpSize, capacity);
    }

    public PoolLayout layout() {
        return layout;
    }

    public PoolCapacity capacity() {
        return capacity;
    }

    public OwnershipMap ownership() {
        return ownership;
    }

    public int cpSize() {
        return ownership.cpSize();
    }

    public int pageSize() {
        return capacity.pageSize();
    }

    public RankPool rank(int rank) {
        return ranks.get(rank);
    }

    public int freePages() {
        return allocator.freePages();
    }

    /** Tokens that fit in the free pages (contract §4.4 {@code availableTokens}). */
    public long availableTokens() {
        return allocator.availableTokens();
    }

    /** Logical tokens the group can ever hold, padding page excluded. */
    public long capacityTokens() {
        return (long) allocator.usablePages() * capacity.pageSize();
    }

    /** Logical pages handed out now. */
    public int allocatedPages() {
        return allocator.allocatedPages();
    }

    /** Physical pages in use over all ranks: the allocated count shared, {@code cp} times it replicated. */
    public long physicalPagesInUse() {
        return physicalInUse;
    }

    /** The most physical pages ever in use at once over all ranks. */
    public long peakPhysicalPages() {
        return peakPhysical;
    }

    /**
     * Allocates {@code count} logical pages and occupies their physical pages.
     *
     * @throws PoolExhaustedException if fewer are free (nothing is taken)
     */
    public int[] allocate(int count) {
        int[] pages = allocator.allocate(count);
        for (int page : pages) {
            forEachPlacement(page, true);
        }
        physicalInUse += (long) pages.length * copiesPerPage();
        peakPhysical = Math.max(peakPhysical, physicalInUse);
        return pages;
    }

    /**
     * Frees logical pages and their physical pages.
     *
     * @throws ForeignPageException if an id is not from this pool (nothing is freed)
     * @throws DoubleFreeException  if a page is not in use or repeats (nothing is freed)
     */
    public void free(int... pageIds) {
        allocator.free(pageIds);
        for (int page : pageIds) {
            forEachPlacement(page, false);
        }
        physicalInUse -= (long) pageIds.length * copiesPerPage();
    }

    /** Logical pages still allocated, ascending; empty when every page came back. */
    public List<Integer> leakCheck() {
        return allocator.leakCheck();
    }

    /** Physical copies of one logical page: 1 shared, {@code cp} replicated. */
    public int copiesPerPage() {
        return layout == PoolLayout.SHARED ? 1 : cpSize();
    }

    private void forEachPlacement(int page, boolean occupy) {
        if (layout == PoolLayout.SHARED) {
            RankPool owner = ranks.get(ownership.owner(page));
            int local = (int) ownership.localPage(page);
            if (occupy) {
                owner.occupy(local);
            } else {
                owner.release(local);
            }
            return;
        }
        for (RankPool pool : ranks) {
            if (occupy) {
                pool.occupy(page);
            } else {
                pool.release(page);
            }
        }
    }
}
