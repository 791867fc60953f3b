package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** Pages copied between buffers whose pages differ in size; nothing is copied. */
public final class PageSizeMismatchException extends KvflowException {
    public PageSizeMismatchException(PageBuffer src, PageBuffer dst) {
        super("page sizes differ: " + src.label() + " has " + src.pageBytes() + " B, " + dst.label() + " has " + dst.pageBytes() + " B");
    }
}
