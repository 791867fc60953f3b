package org.kvflow.kernels.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Pages of {@code pageElems} 8-byte words split across {@link LongArray} chunks, so that a pool
 * larger than one device buffer allows (Aparapi: under 2 GiB per array, since it moves Java arrays) is
 * still one kernel argument and one launch. Every chunk but the last holds {@link #pagesPerChunk()}
 * pages; page {@code p} lives in chunk {@code p / pagesPerChunk} at word
 * {@code (p % pagesPerChunk) · pageElems}. A task graph moves every chunk. The chunks are shared
 * with the caller, not copied; not thread-safe.
 */
public final class LongPages {
    /** The most words one chunk holds: its bytes stay under 2 GiB. */
    public static final int MAX_CHUNK_WORDS = (Integer.MAX_VALUE - 16) / Long.BYTES;

    private final int pageElems;
    private final int pagesPerChunk;
    private final long pageCount;
    private final List<LongArray> chunks;

    private LongPages(int pageElems, int pagesPerChunk, long pageCount, List<LongArray> chunks) {
        this.pageElems = pageElems;
        this.pagesPerChunk = pagesPerChunk;
        this.pageCount = pageCount;
        this.chunks = List.copyOf(chunks);
    }

    /**
     * {@code pageCount} zeroed pages in as few chunks as the 2 GiB limit allows.
     *
     * @throws IllegalArgumentException if {@code pageElems < 1}, {@code pageCount < 0}, or one page
     *         alone exceeds a chunk
     */
    public static LongPages allocate(long pageCount, int pageElems) {
        return allocate(pageCount, pageElems, maxPagesPerChunk(pageElems));
    }

    /** As {@link #allocate(long, int)} with at most {@code pagesPerChunk} pages in a chunk. */
    public static LongPages allocate(long pageCount, int pageElems, int pagesPerChunk) {
        if (pageCount < 0) {
            throw new IllegalArgumentException("pageCount must be >= 0, was " + pageCount);
        }
        if (pagesPerChunk < 1 || pagesPerChunk > maxPagesPerChunk(pageElems)) {
            throw new IllegalArgumentException(pagesPerChunk + " pages of " + pageElems + " words do not fit one chunk of at most "
                    + MAX_CHUNK_WORDS + " words");
        }
        List<LongArray> chunks = new ArrayList<>();
        for (long first = 0; first < pageCount || chunks.isEmpty(); first += pagesPerChunk) {
            int pages = (int) Math.min(pagesPerChunk, pageCount - first);
            chunks.add(new LongArray(pages * pageElems));
        }
        return new LongPages(pageElems, pagesPerChunk, pageCount, chunks);
    }

    /** One chunk: {@code words} holds whole pages and is shared, not copied. */
    public static LongPages of(LongArray words, int pageElems) {
        Objects.requireNonNull(words, "words");
        if (pageElems < 1 || words.getSize() % pageElems != 0) {
            throw new IllegalArgumentException("pool of " + words.getSize() + " words is not a whole number of " + pageElems + "-word pages");
        }
        int pages = words.getSize() / pageElems;
        return new LongPages(pageElems, Math.max(1, pages), pages, List.of(words));
    }

    /** The most pages of {@code pageElems} words one chunk holds. */
    public static int maxPagesPerChunk(int pageElems) {
        if (pageElems < 1 || pageElems > MAX_CHUNK_WORDS) {
            throw new IllegalArgumentException("pageElems must be in [1, " + MAX_CHUNK_WORDS + "], was " + pageElems);
        }
        return MAX_CHUNK_WORDS / pageElems;
    }

    public int pageElems() {
        return pageElems;
    }

    public int pagesPerChunk() {
        return pagesPerChunk;
    }

    public long pageCount() {
        return pageCount;
    }

    public int chunkCount() {
        return chunks.size();
    }

    /** Chunk {@code c} itself (not a copy). */
    public LongArray chunk(int c) {
        return chunks.get(c);
    }

    /** Word {@code i} of page {@code page}. */
    public long get(long page, int i) {
        return chunks.get(chunkOf(page)).get(offsetOf(page) + i);
    }

    /** Sets word {@code i} of page {@code page}. */
    public void set(long page, int i, long value) {
        chunks.get(chunkOf(page)).set(offsetOf(page) + i, value);
    }

    /** @throws IllegalArgumentException if {@code other}'s pages are not as long as these (pages copy whole) */
    public void requireSamePageSize(LongPages other) {
        if (other.pageElems != pageElems) {
            throw new IllegalArgumentException("pages of " + pageElems + " and " + other.pageElems + " words cannot be copied into each other");
        }
    }

    /** Copies page {@code page} of this into page {@code dstPage} of {@code dst} (same page size). */
    public void copyPage(long page, LongPages dst, long dstPage) {
        System.arraycopy(chunks.get(chunkOf(page)).toHeapArray(), offsetOf(page),
                dst.chunks.get(dst.chunkOf(dstPage)).toHeapArray(), dst.offsetOf(dstPage), pageElems);
    }

    private int chunkOf(long page) {
        Objects.checkIndex(page, pageCount);
        return (int) (page / pagesPerChunk);
    }

    private int offsetOf(long page) {
        return (int) (page % pagesPerChunk) * pageElems;
    }

    @Override
    public String toString() {
        return "LongPages[" + pageCount + " pages of " + pageElems + " words in " + chunks.size() + " chunks]";
    }
}
