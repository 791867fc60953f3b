package org.kvflow.transport.cudaipc;

import java.time.Duration;
import java.util.Objects;
import org.kvflow.transfer.RunShape;
import org.kvflow.transfer.TransferBackend;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.DecodeServerTarget;
import org.kvflow.transport.tcp.TcpTarget;
import org.kvflow.transport.tcp.TcpTransferBackend;

/**
 * Where the {@code cuda-ipc} engine sends: a decode server on this host whose pool lies in GPU
 * memory ({@link CudaIpcLanding}), its loopback address and the call timeout. Each run opens the
 * tcp transport's backend (the same handshake, requests, ownership, refusals and timeouts; it
 * implements the config's {@code tcp} backend) with a {@link CudaIpcPlacer} for the page bytes.
 * CUDA IPC reaches only processes of the same host, so the host must be a loopback address.
 *
 * @param host    the decode server's address, a loopback one
 * @param port    its control port
 * @param timeout how long one call may take
 */
public record CudaIpcTarget(String host, int port, Duration timeout) implements DecodeServerTarget {
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
        return new CudaIpcTarget(host, port, TcpTarget.DEFAULT_TIMEOUT);
    }

    /** {@return the same target with another call timeout} */
    public CudaIpcTarget timeout(Duration d) {
        return new CudaIpcTarget(host, port, d);
    }

    /**
     * @throws IllegalArgumentException if the host is not a loopback address
     */
    @Override
    public TransferBackend open(RunShape shape) {
        if (!DecodeServer.loopback(host)) {
            throw new IllegalArgumentException("cuda-ipc to " + host + ": CUDA IPC reaches only a decode server on this host (a loopback address)");
        }
        return new TcpTransferBackend(host, port, shape.pageSize(), shape.layout(), shape.cpSize(), timeout, null, new CudaIpcPlacer(shape.cpSize()));
    }

    @Override
    public String toString() {
        return "cuda-ipc " + host + ":" + port;
    }
}
