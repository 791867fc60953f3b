package org.kvflow.transport.ucx;

import java.time.Duration;
import java.util.Objects;
import org.kvflow.transfer.RunShape;
import org.kvflow.transfer.TransferBackend;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.DecodeServerTarget;
import org.kvflow.transport.tcp.TcpTarget;
import org.kvflow.transport.tcp.TcpTransferBackend;

/**
 * Where the {@code ucx} engine sends: a decode server that lands pages by UCX ({@link UcxLanding}),
 * its address and the call timeout. Each run opens the tcp transport's backend (the same handshake,
 * requests, ownership, refusals and timeouts; it implements the config's {@code tcp} backend) with
 * a {@link UcxPlacer} for the page bytes. UCX carries no TLS: a host beyond loopback is refused
 * unless the operator says the fabric is trusted ({@link #trustedFabric()}).
 *
 * @param host    the decode server's address
 * @param port    its control port
 * @param timeout how long one call may take
 * @param trusted whether a host beyond loopback may be reached (a fabric the operator trusts)
 */
public record UcxTarget(String host, int port, Duration timeout, boolean trusted) implements DecodeServerTarget {
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
        return new UcxTarget(host, port, TcpTarget.DEFAULT_TIMEOUT, false);
    }

    /** {@return the same target with another call timeout} */
    public UcxTarget timeout(Duration d) {
        return new UcxTarget(host, port, d, trusted);
    }

    /** {@return the same target allowed beyond loopback: the operator trusts the fabric, since UCX neither encrypts nor authenticates} */
    public UcxTarget trustedFabric() {
        return new UcxTarget(host, port, timeout, true);
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
        return new TcpTransferBackend(host, port, shape.pageSize(), shape.layout(), shape.cpSize(), timeout, null, new UcxPlacer(shape.cpSize(), timeout));
    }

    @Override
    public String toString() {
        return "ucx " + host + ":" + port + (trusted ? " (trusted fabric)" : "");
    }
}
