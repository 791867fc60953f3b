package org.kvflow.core.pool;

import org.kvflow.core.KvflowException;

/** A page id that this pool never hands out (the padding page 0, or outside its range); nothing was freed. */
public final class ForeignPageException extends KvflowException {
    private final long pageId;

    public ForeignPageException(String pool, long pageId, long firstValid, long lastValid) {
        super(pool + ": page " + pageId + " does not belong to this pool (valid ids " + firstValid + ".." + lastValid + ")");
        this.pageId = pageId;
    }

    public long pageId() {
        return pageId;
    }
}
