package org.kvflow.pages;

import org.kvflow.core.KvflowException;

/** Pages were to be copied between stores whose pages differ in shape (layout or page size). */
public final class IncompatibleStoresException extends KvflowException {
    public IncompatibleStoresException(PageStore src, PageStore dst) {
        super("cannot copy pages from " + src.label() + " (" + src.layout() + ", page size " + src.pageSize() + ") to "
                + dst.label() + " (" + dst.layout() + ", page size " + dst.pageSize() + ")");
    }
}
