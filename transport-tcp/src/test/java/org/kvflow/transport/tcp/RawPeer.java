package org.kvflow.transport.tcp;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;

/** A test peer that speaks the PD frames by hand: what a hostile or broken client can send a decode server. */
final class RawPeer implements AutoCloseable {
    private final BlockingQueue<byte[]> replies = new LinkedBlockingQueue<>();
    private final Connection connection;

    RawPeer(int port) {
        this(port, null);
    }

    /** A peer over mutual TLS with {@code tls}'s certificate (plain TCP when null). */
    RawPeer(int port, @Nullable TransferTls tls) {
        TcpClient client = TcpClient.create().host("127.0.0.1").port(port)
                .doOnConnected(c -> c.addHandlerLast(new FrameReader(Frames.MAX_FRAME + 16)));
        if (tls != null) {
            io.netty.handler.ssl.SslContext context = tls.clientContext();
            client = client.secure(spec -> spec.sslContext(context));
        }
        connection = client.connectNow(Duration.ofSeconds(2));
        connection.inbound().receive().asByteArray().subscribe(replies::offer);
    }

    /** {@return this peer's address as the server sees it, {@code /127.0.0.1:PORT}} */
    String local() {
        return String.valueOf(connection.channel().localAddress());
    }

    /** Sends raw bytes (a frame with its length prefix, or any bytes at all). */
    void send(byte[] bytes) {
        connection.outbound().sendByteArray(Mono.just(bytes)).then().block(Duration.ofSeconds(2));
    }

    /** Sends a frame and returns the reply, or null when none came within 2 s. */
    Frames.@Nullable Reader exchange(byte[] frame) throws InterruptedException {
        send(frame);
        byte[] reply = replies.poll(2, TimeUnit.SECONDS);
        return reply == null ? null : new Frames.Reader(reply);
    }

    /** Says HELLO for {@code layout}, page size {@code pageSize}, prefill CP {@code cp}, as a client of its own; returns the reply. */
    Frames.@Nullable Reader hello(KvLayout layout, int pageSize, int cp) throws InterruptedException {
        byte[] own = new byte[Frames.CLIENT_ID_BYTES];
        new java.util.SplittableRandom().nextBytes(own);
        return hello(layout, pageSize, cp, own);
    }

    /** Says HELLO as client {@code clientId} (16 bytes): connections with the same id act for one client. */
    Frames.@Nullable Reader hello(KvLayout layout, int pageSize, int cp, byte[] clientId) throws InterruptedException {
        return exchange(new Frames.Writer(Frames.HELLO, 48).i32(Frames.MAGIC).i32(pageSize).u8(layout.dtype().ordinal())
                .i32(layout.shape().layers()).i32(layout.mlaRowBytes()).i32(layout.indexRowBytes()).i32(cp)
                .raw(clientId, 0, clientId.length).bytes());
    }

    /** Opens {@code id} of {@code pages} pages from {@code senders} ranks; returns its decode pages. */
    long[] open(String id, int pages, int senders) throws InterruptedException {
        Frames.Reader r = exchange(new Frames.Writer(Frames.OPEN, 32).str(id).i32(pages).i32(senders).bytes());
        if (r == null || r.type() != Frames.OPENED) {
            throw new IllegalStateException("OPEN " + id + " was not answered with OPENED");
        }
        long[] d = new long[r.skipType().i32()];
        for (int i = 0; i < d.length; i++) {
            d[i] = r.i64();
        }
        return d;
    }

    /** Waits until the server closed this connection; true if it did within {@code timeout}. */
    boolean closedWithin(Duration timeout) {
        try {
            connection.onDispose().block(timeout);
            return true;
        } catch (IllegalStateException e) { // block timed out
            return connection.isDisposed();
        }
    }

    @Override
    public void close() {
        connection.disposeNow();
    }
}
