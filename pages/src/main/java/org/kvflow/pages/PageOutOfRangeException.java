package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** A page id outside the buffer it indexes; raised before any byte is copied. */
public final class PageOutOfRangeException extends KvflowException {
    private final long page;

    public PageOutOfRangeException(String buffer, int index, long page, long pageCount) {
        super(buffer + ": entry " + index + " names page " + page + ", outside [0, " + pageCount + ")");
        this.page = page;
    }

    public long page() {
        return page;
    }
}
