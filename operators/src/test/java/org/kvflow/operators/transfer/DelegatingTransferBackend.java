package org.kvflow.operators.transfer;

import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.pages.PageStore;

/** A transfer backend that hands every call on to another, for tests to override the one call they fault or count. */
public class DelegatingTransferBackend implements TransferBackend {
    private final TransferBackend inner;

    public DelegatingTransferBackend(TransferBackend inner) {
        this.inner = inner;
    }

    @Override
    public long[] open(String requestId, int pageCount, int senders) {
        return inner.open(requestId, pageCount, senders);
    }

    @Override
    public void send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
        inner.send(requestId, rank, run, source);
    }

    @Override
    public void complete(String requestId, int rank) {
        inner.complete(requestId, rank);
    }

    @Override
    public void abort(String requestId) {
        inner.abort(requestId);
    }
}
