package org.kvflow.transport.cudaipc;

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
 * Where the {@code cuda-ipc} engine sends: a decode server on this host whose pool lies in GPU
 * memory ({@link CudaIpcLanding}), its loopback address and the call timeout. Each run opens the
 * tcp transport's backend (the same handshake, requests, ownership, refusals and timeouts; it
 * implements the config's {@code tcp} backend) with a {@link CudaIpcPlacer} for the page bytes.
 * CUDA IPC reaches only processes of the same host, so the host must be a loopback address. A
 * decode server with mutual TLS is reached with {@link #tls}: the control connection is then
 * authenticated and requests are named by the client's certificate; the copies are not encrypted.
 *
 * @param host    the decode server's address, a loopback one
 * @param port    its control port
 * @param timeout how long one call may take
 * @param tls     this prefill's certificate and key and the server's CA for the control connection, or null
 */
public record CudaIpcTarget(String host, int port, Duration timeout, @Nullable TransferTls tls) implements DecodeServerTarget {
    /** Checks that the host and timeout are given. */
    public CudaIpcTarget {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(timeout, "timeout");
    }

    /**
     * A target with the tcp transport's default timeout.
     *
     * @param host the decode server's address, a loopback one
     * @param port its control port
     * @return the target
     */
    public static CudaIpcTarget of(String host, int port) {
        return new CudaIpcTarget(host, port, TcpTarget.DEFAULT_TIMEOUT, null);
    }

    /** {@return the same target with another call timeout} */
    public CudaIpcTarget timeout(Duration d) {
        return new CudaIpcTarget(host, port, d, tls);
    }

    /**
     * Mutual TLS on the control connection, as the decode server requires when it has it.
     *
     * @param material this prefill's certificate and key, and the CA that signed the decode server's
     * @return the new target
     */
    public CudaIpcTarget tls(TransferTls material) {
        return new CudaIpcTarget(host, port, timeout, Objects.requireNonNull(material, "tls"));
    }

    /**
     * @throws IllegalArgumentException if the host is not a loopback address
     */
    @Override
    public TransferBackend open(RunShape shape) {
        if (!DecodeServer.loopback(host)) {
            throw new IllegalArgumentException("cuda-ipc to " + host + ": CUDA IPC reaches only a decode server on this host (a loopback address)");
        }
        return new TcpTransferBackend(host, port, shape.pageSize(), shape.layout(), shape.cpSize(), timeout, tls, new CudaIpcPlacer(shape.cpSize()));
    }

    @Override
    public String toString() {
        return "cuda-ipc " + (tls == null ? "" : "tls ") + host + ":" + port;
    }
}
