package org.kvflow.transport.tcp;

import java.time.Duration;
import org.kvflow.transfer.TransferEngine;
import org.kvflow.transfer.TransferFactory;

/** The {@code tcp} engine, found by name: page bytes in PAGES frames over plain TCP (add TLS with {@link TcpTarget#tls}). */
public final class TcpEngine implements TransferEngine {
    @Override
    public String name() {
        return "tcp";
    }

    /** Pure Java: runs wherever the JVM does. */
    @Override
    public void check() {
        // nothing native to load
    }

    @Override
    public TransferFactory target(String host, int port, Duration timeout) {
        return TcpTarget.of(host, port).timeout(timeout);
    }
}
