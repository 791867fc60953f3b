package org.kvflow.core.pool;

import org.kvflow.core.KvflowException;

/** An allocation asked for more pages than the pool has free; nothing was allocated. */
public final class PoolExhaustedException extends KvflowException {
    private final long requestedPages;
    private final long freePages;

    public PoolExhaustedException(long requestedPages, long freePages) {
        super("pool exhausted: requested " + requestedPages + " pages, " + freePages + " free");
        this.requestedPages = requestedPages;
        this.freePages = freePages;
    }

    public long requestedPages() {
        return requestedPages;
    }

    public long freePages() {
        return freePages;
    }

    @Override
    public String code() {
        return "POOL-EXHAUSTED";
    }
}
