package org.kvflow.dsl;

import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
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
}
