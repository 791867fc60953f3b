package org.kvflow.dsl;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.pages.PageStore;
import org.kvflow.operators.transfer.PageRun;
import org.kvflow.operators.transfer.TransferBackend;

/** A {@link TransferBackend} that reports pages, bytes and call latency to the pipeline's meters. */
final class MeteredTransferBackend implements TransferBackend {
    private final TransferBackend delegate;
    private final KvflowMetrics metrics;

    MeteredTransferBackend(TransferBackend delegate, KvflowMetrics metrics) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
        this.metrics = Objects.requireNonNull(metrics, "metrics");
    }

    @Override
    public long[] open(String requestId, int pageCount, int senders) {
        return delegate.open(requestId, pageCount, senders);
    }

    @Override
    public void send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
        long start = System.nanoTime();
        delegate.send(requestId, rank, run, source);
        metrics.transferred(run.length(), System.nanoTime() - start);
    }

    @Override
    public void complete(String requestId, int rank) {
        delegate.complete(requestId, rank);
    }

    @Override
    public void abort(String requestId) {
        delegate.abort(requestId);
    }
}
