package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** A page copy whose source and destination lists differ in length; nothing is copied. */
public final class PageListMismatchException extends KvflowException {
    private final int sourcePages;
    private final int destinationPages;

    public PageListMismatchException(int sourcePages, int destinationPages) {
        super("page lists differ in length: " + sourcePages + " source vs " + destinationPages + " destination pages");
        this.sourcePages = sourcePages;
        this.destinationPages = destinationPages;
    }

    public int sourcePages() {
        return sourcePages;
    }

    public int destinationPages() {
        return destinationPages;
    }

    /** @throws PageListMismatchException unless the lists are the same length */
    public static void check(long[] srcPages, long[] dstPages) {
        if (srcPages.length != dstPages.length) {
            throw new PageListMismatchException(srcPages.length, dstPages.length);
        }
    }
}
