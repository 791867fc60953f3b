package org.kvflow.transfer;

import java.time.Duration;

/**
 * A PD transfer engine found by name ({@code tcp}, {@code ucx}), through {@link java.util.ServiceLoader}:
 * the plug-in seam a pipeline picks an engine through without naming its module. An engine with a
 * native library says here whether the library loads on this machine.
 */
public interface TransferEngine {
    /** {@return the name a pipeline or the CLI picks it by} */
    String name();

    /**
     * Checks that the engine can run here (its native library loads), without connecting anywhere.
     *
     * @throws TransferEngineUnavailableException naming the engine and what is missing
     */
    void check();

    /**
     * The engine's transfer to a decode server.
     *
     * @param host    the decode server's address
     * @param port    its control port
     * @param timeout how long one call may take
     * @return the transfer, for {@code PdTransfer.via}
     */
    TransferFactory target(String host, int port, Duration timeout);
}
