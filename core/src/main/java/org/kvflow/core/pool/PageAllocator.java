package org.kvflow.core.pool;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;

/**
 * The logical paged allocator (contract §3.5, §4.4): ids {@code 1 .. totalPages-1}, page 0 reserved
 * as padding. A fresh allocator hands out ids ascending from 1; freed pages join the tail of the
 * free list (FIFO). Every rank runs an identical copy, so the same alloc/free stream gives the same
 * state everywhere.
 *
 * <p>Calls either succeed whole or change nothing: an allocation larger than the free list, or a
 * free list naming a foreign, free or repeated page, throws before any state changes. Not
 * thread-safe: one scheduler drives it.
 */
public final class PageAllocator {
    private final String name;
    private final int pageSize;
    private final int totalPages;
    private final int[] ring;
    private int head;
    private int freeCount;
    private final BitSet inUse;

    /**
     * @param name       label used in error messages
     * @param totalPages logical ids including the padding page; at least 1
     * @param pageSize   tokens per page
     */
    public PageAllocator(String name, int totalPages, int pageSize) {
        if (totalPages < 1) {
            throw new IllegalArgumentException("totalPages must be >= 1, was " + totalPages);
        }
        if (pageSize < 1) {
            throw new IllegalArgumentException("pageSize must be >= 1, was " + pageSize);
        }
        this.name = name;
        this.pageSize = pageSize;
        this.totalPages = totalPages;
        this.ring = new int[totalPages - 1];
        for (int i = 0; i < ring.length; i++) {
            ring[i] = i + 1;
        }
        this.freeCount = ring.length;
        this.inUse = new BitSet(totalPages);
    }

    public int pageSize() {
        return pageSize;
    }

    /** Logical ids including the padding page. */
    public int totalPages() {
        return totalPages;
    }

    /** Pages that can ever be handed out: {@code totalPages - 1}. */
    public int usablePages() {
        return ring.length;
    }

    public int freePages() {
        return freeCount;
    }

    public int allocatedPages() {
        return ring.length - freeCount;
    }

    /** {@code freePages · ps} (contract §4.4). */
    public long availableTokens() {
        return (long) freeCount * pageSize;
    }

    /** True when {@code pageId} is currently handed out. */
    public boolean isAllocated(int pageId) {
        return pageId > 0 && pageId < totalPages && inUse.get(pageId);
    }

    /**
     * Takes {@code count} pages from the head of the free list.
     *
     * @throws PoolExhaustedException if fewer than {@code count} are free (nothing is taken)
     */
    public int[] allocate(int count) {
        if (count < 0) {
            throw new IllegalArgumentException("count must be >= 0, was " + count);
        }
        if (count > freeCount) {
            throw new PoolExhaustedException(count, freeCount);
        }
        int[] pages = new int[count];
        for (int i = 0; i < count; i++) {
            int page = ring[head];
            head = head + 1 == ring.length ? 0 : head + 1;
            inUse.set(page);
            pages[i] = page;
        }
        freeCount -= count;
        return pages;
    }

    /**
     * Returns pages to the tail of the free list, in the given order.
     *
     * @throws ForeignPageException if an id is 0 or outside the pool (nothing is freed)
     * @throws DoubleFreeException  if a page is not in use or repeats in {@code pageIds} (nothing is freed)
     */
    public void free(int... pageIds) {
        BitSet seen = new BitSet();
        for (int page : pageIds) {
            if (page <= 0 || page >= totalPages) {
                throw new ForeignPageException(name, page, 1, totalPages - 1);
            }
            if (!inUse.get(page) || seen.get(page)) {
                throw new DoubleFreeException(name, page);
            }
            seen.set(page);
        }
        for (int page : pageIds) {
            inUse.clear(page);
            int tail = head + freeCount;
            ring[tail >= ring.length ? tail - ring.length : tail] = page;
            freeCount++;
        }
    }

    /** Pages still handed out, ascending; empty when every page came back. */
    public List<Integer> leakCheck() {
        List<Integer> leaked = new ArrayList<>(allocatedPages());
        inUse.stream().forEach(leaked::add);
        return leaked;
    }
}
