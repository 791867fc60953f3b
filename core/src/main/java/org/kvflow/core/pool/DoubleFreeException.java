package org.kvflow.core.pool;

import org.kvflow.core.KvflowException;

/** A page was released that is not in use (already freed, or never handed out); nothing was freed. */
public final class DoubleFreeException extends KvflowException {
    private final long pageId;

    public DoubleFreeException(String pool, long pageId) {
        super(pool + ": page " + pageId + " is not in use (double free)");
        this.pageId = pageId;
    }

    public long pageId() {
        return pageId;
    }
}
