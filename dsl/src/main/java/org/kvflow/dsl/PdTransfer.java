package org.kvflow.dsl;

import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.model.KvLayout;
import org.kvflow.dsl.tcp.TcpTransferBackend;
import org.kvflow.dsl.tcp.TransferTls;
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
        return tcp(host, port, pageSize, layout, prefillCp, timeout, null);
    }

    /**
     * Over TCP with mutual TLS to a {@code DecodeServer} that requires it (any address beyond loopback).
     *
     * @param tls this prefill's certificate and key and the CA that signed the decode server's, or null for plain TCP
     */
    public static TransferSpec tcp(String host, int port, int pageSize, @Nullable KvLayout layout, int prefillCp, Duration timeout,
                                   @Nullable TransferTls tls) {
        return new TransferSpec(TransferBackendKind.TCP, (tls == null ? "" : "tls ") + host + ":" + port,
                () -> new TcpTransferBackend(host, port, pageSize, layout, prefillCp, timeout, tls));
    }
}
