package org.kvflow.dsl;

import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.transport.tcp.TcpTransferBackend;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;

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
     * Over plain TCP to a {@code DecodeServer} (backend {@code tcp}, the embedded default).
     *
     * @param host the decode server's address
     * @param port its port
     * @return the stage, with the default call timeout
     */
    public static TransferSpec tcp(String host, int port) {
        return tcp(TcpTarget.of(host, port));
    }

    /**
     * Over TCP to {@code target}; page size, layout and CP size come from the pipeline.
     *
     * @param target address, timeout and TLS material
     * @return the stage
     */
    public static TransferSpec tcp(TcpTarget target) {
        return new TransferSpec(TransferBackendKind.TCP, target.toString(), shape -> new TcpTransferBackend(target.host(), target.port(),
                shape.pageSize(), shape.layout(), shape.cpSize(), target.timeout(), target.tls()));
    }
}
