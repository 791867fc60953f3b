package org.kvflow.transfer;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.pages.PageStore;
import reactor.core.publisher.Mono;

/** Transfer to a {@link DecodeReceiver} in the same process: pages are copied straight into its store when a call is subscribed. */
public final class InMemoryTransferBackend implements TransferBackend {
    private final DecodeReceiver receiver;

    /**
     * A backend delivering into {@code receiver} in this process.
     *
     * @param receiver the decode side
     */
    public InMemoryTransferBackend(DecodeReceiver receiver) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
    }

    /** {@return the decode side} */
    public DecodeReceiver receiver() {
        return receiver;
    }

    @Override
    public Mono<long[]> open(String requestId, int pageCount, int senders) {
        return Mono.fromCallable(() -> receiver.open(requestId, pageCount, senders));
    }

    @Override
    public Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
        return Mono.fromRunnable(() -> receiver.accept(requestId, rank, run.src(), run.dst(), source));
    }

    @Override
    public Mono<Void> complete(String requestId, int rank) {
        return Mono.fromRunnable(() -> receiver.complete(requestId, rank));
    }

    @Override
    public Mono<Void> abort(String requestId) {
        return Mono.fromRunnable(() -> receiver.release(requestId));
    }
}
