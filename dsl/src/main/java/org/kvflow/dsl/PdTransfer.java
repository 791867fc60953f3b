package org.kvflow.dsl;

import java.time.Duration;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.TransferEngine;
import org.kvflow.transfer.TransferEngineUnavailableException;
import org.kvflow.transfer.TransferEngines;
import org.kvflow.transfer.TransferFactory;

/** Factories for the transfer stage. */
public final class PdTransfer {
    private PdTransfer() {}

    /**
     * To a decode receiver in this process (tests, the replicated baseline of the demo).
     *
     * @param receiver the decode side's pages
     * @return the stage
     */
    public static TransferSpec inMemory(DecodeReceiver receiver) {
        return new TransferSpec(null, "in-memory receiver", shape -> new InMemoryTransferBackend(receiver));
    }

    /**
     * Through a transport's plug-in: over TCP to a decode server, for instance, with
     * {@code PdTransfer.via(TcpTarget.of(host, port))} (kvflow-transport-tcp). Page size, layout
     * and CP size come from the pipeline.
     *
     * @param transport the transport and where it sends
     * @return the stage
     */
    public static TransferSpec via(TransferFactory transport) {
        return new TransferSpec(transport.kind(), transport.target(), transport::open);
    }

    /**
     * Through the transfer engine named {@code engine} ({@code tcp}, {@code ucx}: whichever are on the
     * class path, found by {@link TransferEngines}) to the decode server at {@code host:port}, each
     * call given {@code timeout}. An engine that is not on the class path, or whose native library
     * does not load here, is a problem {@code build()} names.
     *
     * @param engine  the engine's name
     * @param host    the decode server's address
     * @param port    its control port
     * @param timeout how long one call may take
     * @return the stage
     */
    public static TransferSpec engine(String engine, String host, int port, Duration timeout) {
        TransferEngine found;
        try {
            found = TransferEngines.find(engine);
        } catch (TransferEngineUnavailableException e) {
            return new TransferSpec(null, engine + " " + host + ":" + port, shape -> {
                throw e;
            }, e.getMessage());
        }
        return via(found.target(host, port, timeout));
    }
}
