package org.kvflow.pages;

import org.kvflow.core.validate.PageGroups;
import org.kvflow.pages.PageLists;

/** Checks and compositions shared by every {@link PageMemory}. */
public final class PageCopies {
    private PageCopies() {}

    /**
     * The checks every page memory runs before copying.
     *
     * @throws PageListMismatchException if the lists differ in length
     * @throws PageSizeMismatchException if the buffers' page sizes differ
     * @throws org.kvflow.pages.PageOutOfRangeException naming the first page outside its buffer
     */
    public static void checkPairs(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        checkShape(src, srcPages, dst, dstPages);
        PageLists.check(src.label(), srcPages, src.pages());
        PageLists.check(dst.label(), dstPages, dst.pages());
    }

    /**
     * The part of {@link #checkPairs} that needs no page list walked: the lists' lengths and the
     * buffers' page sizes agree.
     *
     * @throws PageListMismatchException if the lists differ in length
     * @throws PageSizeMismatchException if the buffers' page sizes differ
     */
    public static void checkShape(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        PageListMismatchException.check(srcPages, dstPages);
        if (src.pageBytes() != dst.pageBytes()) {
            throw new PageSizeMismatchException(src, dst);
        }
    }

    /**
     * {@link #checkPairs} for every copy of a batch, in order, with each page list checked once per
     * buffer size it is used with: a full view's rows share their owner's two lists across every
     * layer and component, so a 61-layer view from eight owners checks 16 lists, not 976 rows of
     * them. The same checks, so the same first error.
     *
     * @throws PageListMismatchException if a copy's lists differ in length
     * @throws PageSizeMismatchException if a copy's buffers' page sizes differ
     * @throws org.kvflow.pages.PageOutOfRangeException naming the first page outside its buffer
     */
    public static void checkPairs(java.util.List<PageCopy> copies) {
        /** A page list (by identity: a record compares array components by reference) and the page count it was checked against. */
        record Checked(long[] pages, long pageCount) {}
        java.util.Set<Checked> checked = new java.util.HashSet<>();
        PageCopy previous = null;
        for (PageCopy copy : copies) {
            checkShape(copy.src(), copy.srcPages(), copy.dst(), copy.dstPages());
            // a view's rows come owner by owner, so most rows repeat the row before's lists and sizes: no lookup for those
            boolean sameSrc = previous != null && copy.srcPages() == previous.srcPages() && copy.src().pages() == previous.src().pages();
            if (!sameSrc && checked.add(new Checked(copy.srcPages(), copy.src().pages()))) {
                PageLists.check(copy.src().label(), copy.srcPages(), copy.src().pages());
            }
            boolean sameDst = previous != null && copy.dstPages() == previous.dstPages() && copy.dst().pages() == previous.dst().pages();
            if (!sameDst && checked.add(new Checked(copy.dstPages(), copy.dst().pages()))) {
                PageLists.check(copy.dst().label(), copy.dstPages(), copy.dst().pages());
            }
            previous = copy;
        }
    }

    /**
     * The checks of a checked batch ({@link CheckedCopies}): {@link #checkPairs(java.util.List)},
     * then every copy moves the first copy's pages, from and to (one run in every buffer).
     *
     * @throws IllegalArgumentException naming the first copy whose page lists differ from the first copy's
     */
    public static void checkOneRun(java.util.List<PageCopy> copies) {
        checkPairs(copies);
        for (int i = 1; i < copies.size(); i++) {
            PageCopy copy = copies.get(i);
            if (!java.util.Arrays.equals(copy.srcPages(), copies.get(0).srcPages()) || !java.util.Arrays.equals(copy.dstPages(), copies.get(0).dstPages())) {
                throw new IllegalArgumentException("copy " + i + " of a checked batch (" + copy.src().label() + " to " + copy.dst().label()
                        + ") moves other pages than copy 0: a checked batch copies one run of pages in every buffer");
            }
        }
    }

    /**
     * Copies token-indexed pages (the HiCache backup and load path, contract §11.3): both index lists
     * are validated as page-aligned groups (contract §9) before anything moves, then group {@code g}
     * of {@code srcTokens} is copied to group {@code g} of {@code dstTokens}.
     *
     * @return the bytes that crossed the host
     * @throws org.kvflow.core.validate.PageGroupValidationException for a malformed group (nothing is copied)
     */
    public static long copyTokens(PageMemory memory, PageBuffer src, long[] srcTokens, PageBuffer dst, long[] dstTokens,
                                  int pageSize, String context) {
        PageGroups.validatePageAlignedTokenIndices(srcTokens, pageSize, context + " (source)");
        PageGroups.validatePageAlignedTokenIndices(dstTokens, pageSize, context + " (destination)");
        if (srcTokens.length != dstTokens.length) {
            throw new IllegalArgumentException(context + ": " + srcTokens.length + " source vs " + dstTokens.length
                    + " destination token indices");
        }
        return memory.copyPages(src, pagesOf(srcTokens, pageSize), dst, pagesOf(dstTokens, pageSize));
    }

    /** Gathers {@code pages} of {@code src} into pages {@code 0..n-1} of {@code view}. {@return the bytes that crossed the host} */
    public static long gather(PageMemory memory, PageBuffer src, long[] pages, PageBuffer view) {
        return memory.copyPages(src, pages, view, identity(pages.length));
    }

    /** Scatters pages {@code 0..n-1} of {@code view} back to {@code pages} of {@code dst}. {@return the bytes that crossed the host} */
    public static long scatter(PageMemory memory, PageBuffer view, PageBuffer dst, long[] pages) {
        return memory.copyPages(view, identity(pages.length), dst, pages);
    }

    private static long[] pagesOf(long[] tokens, int pageSize) {
        long[] pages = new long[tokens.length / pageSize];
        for (int g = 0; g < pages.length; g++) {
            pages[g] = tokens[g * pageSize] / pageSize;
        }
        return pages;
    }

    private static long[] identity(int n) {
        long[] ids = new long[n];
        for (int i = 0; i < n; i++) {
            ids[i] = i;
        }
        return ids;
    }
}
