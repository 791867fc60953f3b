package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.netty.Connection;

/**
 * One connection of a {@link TcpTransferBackend} to a decode server: frames written in call order,
 * replies handed back in the same order. The event loop only polls a lock-free queue and completes
 * a sink, so it never waits.
 */
final class DecodeConnection {
    private final Connection connection;
    /** {@code host:port}, for errors. */
    private final String peer;
    private final AtomicLong bytesSent;
    private final Queue<Sinks.One<byte[]>> pending = new ConcurrentLinkedQueue<>();
    private volatile boolean closed;

    DecodeConnection(Connection connection, String peer, AtomicLong bytesSent) {
        this.connection = connection;
        this.peer = peer;
        this.bytesSent = bytesSent;
        connection.inbound().receive().asByteArray().subscribe(this::reply, e -> closed(), this::closed);
    }

    boolean isClosed() {
        return closed || connection.isDisposed();
    }

    /**
     * Writes the frame {@code frame} makes (built when subscribed, outside the lock, so several
     * frames of one connection are built at once) and completes with its reply.
     *
     * @throws DecodeUnreachableException (as the Mono's error) naming {@code what} when the connection closed
     */
    Mono<byte[]> exchange(Supplier<ByteBuf> frame, String what) {
        return Mono.defer(() -> {
            Sinks.One<byte[]> reply = Sinks.one();
            ByteBuf buf = frame.get();
            synchronized (this) {
                if (isClosed()) {
                    buf.release();
                    return Mono.error(new DecodeUnreachableException(what + ": decode at " + peer + " closed the connection"));
                }
                bytesSent.addAndGet(buf.readableBytes());
                pending.add(reply);
                connection.channel().writeAndFlush(buf).addListener(done -> {
                    if (!done.isSuccess()) {
                        dispose();
                    }
                });
            }
            return reply.asMono().onErrorMap(e -> !(e instanceof DecodeUnreachableException),
                    e -> new DecodeUnreachableException(what + ": " + e.getMessage(), e));
        });
    }

    private void reply(byte[] bytes) {
        Sinks.One<byte[]> waiting = pending.poll();
        if (waiting != null) {
            waiting.tryEmitValue(bytes);
        }
    }

    private void closed() {
        closed = true;
        for (Sinks.One<byte[]> waiting = pending.poll(); waiting != null; waiting = pending.poll()) {
            waiting.tryEmitError(new IllegalStateException("decode at " + peer + " closed the connection"));
        }
    }

    void dispose() {
        connection.dispose();
        closed();
    }
}
