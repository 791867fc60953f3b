package org.kvflow.transport.tcp;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.transfer.RunShape;
import org.kvflow.transfer.TransferBackend;

/**
 * Where the {@code tcp} transfer sends: a decode server's address, how long one call may take,
 * and the mutual-TLS material when the server requires it (any address beyond loopback). A
 * pipeline is given it as its transfer; each run opens a {@link TcpTransferBackend} of the run's shape.
 *
 * @param host    the decode server's address
 * @param port    its port
 * @param timeout how long one call may take before it fails typed
 * @param tls     this prefill's certificate and key and the server's CA, or null for plain TCP
 */
public record TcpTarget(String host, int port, Duration timeout, @Nullable TransferTls tls) implements DecodeServerTarget {
    /** Thirty seconds per call unless set. */
    public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(30);

    /** Checks that the host and timeout are given. */
    public TcpTarget {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * Plain TCP with the default timeout.
     *
     * @param host the decode server's address
     * @param port its port
     * @return the target
     */
    public static TcpTarget of(String host, int port) {
        return new TcpTarget(host, port, DEFAULT_TIMEOUT, null);
    }

    /**
     * The same target with another call timeout.
     *
     * @param d how long one call may take
     * @return the new target
     */
    public TcpTarget timeout(Duration d) {
        return new TcpTarget(host, port, d, tls);
    }

    /**
     * Mutual TLS.
     *
     * @param material this prefill's certificate and key, and the CA that signed the decode server's
     * @return the new target
     */
    public TcpTarget tls(TransferTls material) {
        return new TcpTarget(host, port, timeout, Objects.requireNonNull(material, "tls"));
    }

    @Override
    public TransferBackend open(RunShape shape) {
        return new TcpTransferBackend(host, port, shape.pageSize(), shape.layout(), shape.cpSize(), timeout, tls);
    }

    @Override
    public String toString() {
        return (tls == null ? "" : "tls ") + host + ":" + port;
    }
}
