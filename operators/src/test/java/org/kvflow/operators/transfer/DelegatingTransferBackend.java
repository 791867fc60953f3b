package org.kvflow.operators.transfer;

import org.jspecify.annotations.Nullable;
import org.kvflow.pages.PageStore;
import reactor.core.publisher.Mono;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.TransferBackend;

/** A transfer backend that hands every call on to another, for tests to override the one call they fault or count. */
public class DelegatingTransferBackend implements TransferBackend {
    private final TransferBackend inner;

    public DelegatingTransferBackend(TransferBackend inner) {
        this.inner = inner;
    }

    @Override
    public Mono<long[]> open(String requestId, int pageCount, int senders) {
        return inner.open(requestId, pageCount, senders);
    }

    @Override
    public Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
        return inner.send(requestId, rank, run, source);
    }

    @Override
    public Mono<Void> complete(String requestId, int rank) {
        return inner.complete(requestId, rank);
    }

    @Override
    public Mono<Void> abort(String requestId) {
        return inner.abort(requestId);
    }
}
