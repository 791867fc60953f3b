package org.kvflow.kernels.copy;

/**
 * Moves whole pages between page buffers. Every call checks its page lists (lengths, page sizes,
 * ranges) before the first byte moves, so a bad list copies nothing. Implementations free every
 * buffer they allocated in {@link #close()}; one copier is used by one thread at a time.
 */
public interface PageCopier extends AutoCloseable {
    /** The name it is found by ({@code java}, {@code cuda}). */
    String name();

    /** The device it runs on, as its driver names it. */
    String deviceName();

    /** A zeroed buffer on this copier's memory (heap for {@code java}, device memory for {@code cuda}). */
    PageBuffer allocate(String label, long pages, int pageBytes);

    /** A zeroed host staging buffer (pinned for {@code cuda}), e.g. a HiCache host pool. */
    PageBuffer allocateHost(String label, long pages, int pageBytes);

    /** Copies {@code pages} pages from a Java array into {@code dst} starting at {@code firstPage}. */
    void write(PageBuffer dst, long firstPage, byte[] src, int srcOffset, int pages);

    /** Copies {@code pages} pages of {@code src} starting at {@code firstPage} into a Java array. */
    void read(PageBuffer src, long firstPage, int pages, byte[] dst, int dstOffset);

    /**
     * {@code dst[dstPages[i]] ← src[srcPages[i]]}: direct copies, gathers (dst pages 0..n-1) and
     * scatters (src pages 0..n-1), between any two buffers of this copier.
     *
     * @throws IllegalArgumentException if the lists differ in length or the page sizes differ
     * @throws org.kvflow.kernels.gather.PageOutOfRangeException if a page is outside its buffer
     */
    void copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages);

    /** Frees a buffer now rather than at {@link #close()}. */
    void free(PageBuffer buffer);

    @Override
    void close();
}
