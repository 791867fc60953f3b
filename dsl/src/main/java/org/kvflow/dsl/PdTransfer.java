package org.kvflow.dsl;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.model.KvLayout;
import org.kvflow.dsl.tcp.TcpTransferBackend;
import org.kvflow.operators.transfer.DecodeReceiver;
import org.kvflow.operators.transfer.InMemoryTransferBackend;

/** Factories for the transfer stage. */
public final class PdTransfer {
    private PdTransfer() {}

    /** To a decode receiver in this process (tests, the replicated baseline of the demo). */
    public static TransferSpec inMemory(DecodeReceiver receiver) {
        return new TransferSpec(null, "in-memory receiver", () -> new InMemoryTransferBackend(receiver));
    }

    /** Over TCP to a {@code DecodeServer} (backend {@code tcp}, the embedded default). */
    public static TransferSpec tcp(String host, int port, int pageSize, @Nullable KvLayout layout, int prefillCp, Duration timeout) {
        return new TransferSpec(TransferBackendKind.TCP, host + ":" + port,
                () -> new TcpTransferBackend(host, port, pageSize, layout, prefillCp, timeout));
    }
}
