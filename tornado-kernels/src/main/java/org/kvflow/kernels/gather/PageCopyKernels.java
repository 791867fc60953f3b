package org.kvflow.kernels.gather;

/**
 * Page gather and scatter reference: copies whole pages between byte buffers by page lists.
 * Every page id is checked against both buffers before the first byte moves, so a bad list
 * copies nothing.
 */
public final class PageCopyKernels {
    private PageCopyKernels() {}

    /**
     * {@code dst[dstPages[i]] ← src[srcPages[i]]} for every {@code i}, whole pages of {@code pageBytes}.
     *
     * @throws IllegalArgumentException  if the lists differ in length
     * @throws PageOutOfRangeException   if a page lies outside its buffer (nothing is copied)
     */
    public static void copyPages(byte[] src, long[] srcPages, byte[] dst, long[] dstPages, int pageBytes) {
        if (srcPages.length != dstPages.length) {
            throw new IllegalArgumentException("page lists differ in length: " + srcPages.length + " vs " + dstPages.length);
        }
        if (pageBytes < 1) {
            throw new IllegalArgumentException("pageBytes must be >= 1, was " + pageBytes);
        }
        checkPages("source", srcPages, src.length / pageBytes);
        checkPages("destination", dstPages, dst.length / pageBytes);
        for (int i = 0; i < srcPages.length; i++) {
            System.arraycopy(src, Math.toIntExact(srcPages[i] * pageBytes), dst, Math.toIntExact(dstPages[i] * pageBytes), pageBytes);
        }
    }

    /** Checks page ids against a buffer of {@code pageCount} pages. */
    public static void checkPages(String buffer, long[] pages, long pageCount) {
        for (int i = 0; i < pages.length; i++) {
            if (pages[i] < 0 || pages[i] >= pageCount) {
                throw new PageOutOfRangeException(buffer, i, pages[i], pageCount);
            }
        }
    }
}
