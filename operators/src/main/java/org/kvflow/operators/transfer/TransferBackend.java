package org.kvflow.operators.transfer;

import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.pages.PageStore;

/**
 * The PD transfer SPI (SPEC §8): how prefill ranks hand pages to a non-CP decode instance. A
 * backend must place every page by its logical page position ({@code D[pos]}), never by order in a
 * filtered list, which is what makes it valid with CP shared KV (E-PD-1). Implementations: the
 * in-memory one here, the TCP one in the DSL module.
 */
public interface TransferBackend {
    /**
     * Handshake for one request: the decode side allocates its pages and returns its page list
     * {@code D} (one decode page per logical page position).
     *
     * @param senders prefill ranks that will each report completion exactly once
     */
    long[] open(String requestId, int pageCount, int senders);

    /**
     * Ships one run of pages from a prefill rank: source pages of {@code source} (the rank's
     * physical pages) to decode pages {@code run.dst()}. {@code source} is {@code null} when the
     * pipeline plans pages without KV bytes.
     */
    void send(String requestId, int rank, PageRun run, @Nullable PageStore source);

    /** Rank {@code rank} has sent everything it owns of this request (also with zero pages). */
    void complete(String requestId, int rank);

    /** The request failed or was cancelled: the decode side frees its pages. Unknown ids are ignored. */
    void abort(String requestId);
}
