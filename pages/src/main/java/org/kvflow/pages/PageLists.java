package org.kvflow.pages;

/**
 * Checks and copies by page list: every page id is checked against its buffer before the first
 * byte moves, so a bad list moves nothing. The heap's page copy is the reference the device
 * memories' copies are tested against.
 */
public final class PageLists {
    private PageLists() {}

    /**
     * {@code dst[dstPages[i]] ← src[srcPages[i]]} for every {@code i}, whole pages of {@code pageBytes}.
     *
     * @throws IllegalArgumentException  if the lists differ in length
     * @throws PageOutOfRangeException   if a page lies outside its buffer (nothing is copied)
     */
    public static void copy(byte[] src, long[] srcPages, byte[] dst, long[] dstPages, int pageBytes) {
        if (srcPages.length != dstPages.length) {
            throw new IllegalArgumentException("page lists differ in length: " + srcPages.length + " vs " + dstPages.length);
        }
        if (pageBytes < 1) {
            throw new IllegalArgumentException("pageBytes must be >= 1, was " + pageBytes);
        }
        check("source", srcPages, src.length / pageBytes);
        check("destination", dstPages, dst.length / pageBytes);
        for (int i = 0; i < srcPages.length; i++) {
            System.arraycopy(src, Math.toIntExact(srcPages[i] * pageBytes), dst, Math.toIntExact(dstPages[i] * pageBytes), pageBytes);
        }
    }

    /**
     * @throws PageOutOfRangeException naming {@code buffer} and the first entry of {@code pages}
     *         outside {@code [0, pageCount)}
     */
    public static void check(String buffer, long[] pages, long pageCount) {
        for (int i = 0; i < pages.length; i++) {
            if (pages[i] < 0 || pages[i] >= pageCount) {
                throw new PageOutOfRangeException(buffer, i, pages[i], pageCount);
            }
        }
    }
}
