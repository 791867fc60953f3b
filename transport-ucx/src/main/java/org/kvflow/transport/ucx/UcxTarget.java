package org.kvflow.transport.ucx;

import java.time.Duration;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.transfer.RunShape;
import org.kvflow.transfer.TransferBackend;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.DecodeServerTarget;
import org.kvflow.transport.tcp.TcpTarget;
import org.kvflow.transport.tcp.TcpTransferBackend;
import org.kvflow.transport.tcp.TransferTls;

/**
 * Where the {@code ucx} engine sends: a decode server that lands pages by UCX ({@link UcxLanding}),
 * its address and the call timeout. Each run opens the tcp transport's backend (the same handshake,
 * requests, ownership, refusals and timeouts; it implements the config's {@code tcp} backend) with
 * a {@link UcxPlacer} for the page bytes. UCX carries no TLS: a host beyond loopback is refused
 * unless the operator says the fabric is trusted ({@link #trustedFabric()}). Mutual TLS on the control
 * connection ({@link #tls}) decides who gets the pool's description (its addresses and remote keys)
 * and names requests by the client's certificate; the puts themselves stay unencrypted.
 *
 * @param host    the decode server's address
 * @param port    its control port
 * @param timeout how long one call may take
 * @param trusted whether a host beyond loopback may be reached (a fabric the operator trusts)
 * @param tls     this prefill's certificate and key and the server's CA for the control connection, or null
 */
public record UcxTarget(String host, int port, Duration timeout, boolean trusted, @Nullable TransferTls tls) implements DecodeServerTarget {
    /** Checks that the host and timeout are given. */
    public UcxTarget {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * A loopback-only target with the tcp transport's default timeout.
     *
     * @param host the decode server's address
     * @param port its control port
     * @return the target
     */
    public static UcxTarget of(String host, int port) {
        return new UcxTarget(host, port, TcpTarget.DEFAULT_TIMEOUT, false, null);
    }

    /** {@return the same target with another call timeout} */
    public UcxTarget timeout(Duration d) {
        return new UcxTarget(host, port, d, trusted, tls);
    }

    /** {@return the same target allowed beyond loopback: the operator trusts the fabric, since UCX neither encrypts nor authenticates} */
    public UcxTarget trustedFabric() {
        return new UcxTarget(host, port, timeout, true, tls);
    }

    /**
     * Mutual TLS on the control connection, as the decode server requires when it has it.
     *
     * @param material this prefill's certificate and key, and the CA that signed the decode server's
     * @return the new target
     */
    public UcxTarget tls(TransferTls material) {
        return new UcxTarget(host, port, timeout, trusted, Objects.requireNonNull(material, "tls"));
    }

    /**
     * @throws IllegalArgumentException if the host lies beyond loopback and the fabric is not trusted, or does not resolve
     */
    @Override
    public TransferBackend open(RunShape shape) {
        if (!trusted && !DecodeServer.loopback(host)) {
            throw new IllegalArgumentException("ucx to " + host + ": UCX carries no TLS, so a host beyond loopback needs a fabric the operator trusts"
                    + " (UcxTarget.trustedFabric)");
        }
        return new TcpTransferBackend(host, port, shape.pageSize(), shape.layout(), shape.cpSize(), timeout, tls, new UcxPlacer(shape.cpSize(), timeout));
    }

    @Override
    public String toString() {
        return "ucx " + (tls == null ? "" : "tls ") + host + ":" + port + (trusted ? " (trusted fabric)" : "");
    }
}
