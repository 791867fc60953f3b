package org.kvflow.operators.transfer;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.kernels.pages.PageStore;

/** Transfer to a {@link DecodeReceiver} in the same process: pages are copied straight into its store. */
public final class InMemoryTransferBackend implements TransferBackend {
    private final DecodeReceiver receiver;

    public InMemoryTransferBackend(DecodeReceiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    public DecodeReceiver receiver() {
        return receiver;
    }

    @Override
    public long[] open(String requestId, int pageCount, int senders) {
        return receiver.open(requestId, pageCount, senders);
    }

    @Override
    public void send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
        receiver.accept(requestId, rank, run.src(), run.dst(), source);
    }

    @Override
    public void complete(String requestId, int rank) {
        receiver.complete(requestId, rank);
    }

    @Override
    public void abort(String requestId) {
        receiver.release(requestId);
    }
}
