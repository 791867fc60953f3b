package org.kvflow.transport.tcp;

import org.kvflow.pages.PageStore;
import reactor.core.publisher.Mono;

/**
 * The prefill side of an engine that writes page bytes straight into the decode side's pool (UCX
 * one-sided puts) while the TCP connection carries everything else: the handshake, OPEN, the
 * PLACED frame that tells the decode side which pages landed and their CRC32C, COMPLETE, ABORT.
 * {@link TcpTransferBackend} names the engine in each connection's HELLO and hands the decode
 * side's answer to {@link #connected}.
 */
public interface PagePlacer extends AutoCloseable {
    /** {@return the engine's name, as the decode server's {@link PageLanding} knows it} */
    String engine();

    /**
     * Connection {@code lane} (one per CP rank) shook hands; {@code decodeSide} is what the decode
     * server's landing described (its pool's addresses and keys). Called again after a reconnect,
     * with the new description.
     *
     * @throws RuntimeException if the description cannot be used: the connection is refused
     */
    void connected(int lane, byte[] decodeSide);

    /**
     * Writes pages {@code srcStart ..} of {@code source} into decode pages {@code dstStart ..} on
     * lane {@code lane}'s decode side, every layer and pool, and completes once the bytes are there
     * (remotely complete), with each page's CRC32C in the contract's page order ({@link PageCrcs}).
     *
     * @param lane     the connection, as in {@link #connected}
     * @param source   the rank's store
     * @param srcStart its first page
     * @param dstStart the first decode page
     * @param length   pages
     * @return the pages' checksums
     */
    Mono<int[]> place(int lane, PageStore source, long srcStart, long dstStart, int length);

    /** Releases the engine's endpoints and memory; later calls fail. */
    @Override
    void close();
}
