package org.kvflow.transfer;

import org.jspecify.annotations.Nullable;
import org.kvflow.pages.PageStore;
import reactor.core.publisher.Mono;

/**
 * The PD transfer SPI (contract §8): how prefill ranks hand pages to a non-CP decode instance. A
 * backend must place every page by its logical page position ({@code D[pos]}), never by order in a
 * filtered list, which is what makes it valid with CP shared KV (E-PD-1). Every call returns at
 * once with a {@link Mono} that does the work when subscribed and never blocks the subscribing
 * thread. Implementations: the in-process one here, the TCP one in the transport-tcp module.
 */
public interface TransferBackend {
    /**
     * The transfer stage's name: the stage hands a backend its view of each rank's store counted
     * under it ({@link PageStore#countedAs}), so the page bytes a backend reads across the host, on
     * whatever thread it builds its frames, count as the transfer's.
     */
    String STAGE = "kvflow.transfer";

    /**
     * Handshake for one request: the decode side allocates its pages and answers with its page list
     * {@code D} (one decode page per logical page position).
     *
     * @param requestId the request
     * @param pageCount its logical pages
     * @param senders   prefill ranks that will each report completion exactly once
     * @return the decode page list, when the decode side answered
     */
    Mono<long[]> open(String requestId, int pageCount, int senders);

    /**
     * Ships one run of pages from a prefill rank: pages {@code run.src()} of {@code source} (the
     * rank's store; read through it, wherever its memory is) to decode pages {@code run.dst()}.
     * {@code source} is {@code null} when the pipeline plans pages without KV bytes.
     *
     * @param requestId the request
     * @param rank      the sending rank
     * @param run       the pages
     * @param source    the rank's store, or null
     * @return completes when the decode side took the pages
     */
    Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source);

    /**
     * Rank {@code rank} has sent everything it owns of this request (also with zero pages).
     *
     * @param requestId the request
     * @param rank      the rank
     * @return completes when the decode side recorded it
     */
    Mono<Void> complete(String requestId, int rank);

    /**
     * The request failed or was cancelled: the decode side frees its pages. Unknown ids are ignored.
     *
     * @param requestId the request
     * @return completes when the decode side freed them
     */
    Mono<Void> abort(String requestId);
}
