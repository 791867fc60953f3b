package org.kvflow.dsl;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.TransferBackend;
import reactor.core.publisher.Mono;

/** A {@link TransferBackend} that reports pages, bytes and call latency to the pipeline's meters. */
final class MeteredTransferBackend implements TransferBackend {
    private final TransferBackend delegate;
    private final KvflowMetrics metrics;

    MeteredTransferBackend(TransferBackend delegate, KvflowMetrics metrics) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public Mono<long[]> open(String requestId, int pageCount, int senders) {
        return delegate.open(requestId, pageCount, senders);
    }

    /** Counts the run's pages and the call's latency, from subscription to completion. */
    @Override
    public Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
        return Mono.defer(() -> {
            long start = System.nanoTime();
            return delegate.send(requestId, rank, run, source).doOnSuccess(done -> metrics.transferred(run.length(), System.nanoTime() - start));
        });
    }

    @Override
    public Mono<Void> complete(String requestId, int rank) {
        return delegate.complete(requestId, rank);
    }

    @Override
    public Mono<Void> abort(String requestId) {
        return delegate.abort(requestId).doOnSuccess(done -> metrics.aborted());
    }
}
