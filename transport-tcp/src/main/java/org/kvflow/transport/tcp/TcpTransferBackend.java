package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.pages.KvComponent;
import org.kvflow.kernels.pages.PageStore;
import org.kvflow.operators.transfer.PageRun;
import org.kvflow.operators.transfer.TransferBackend;
import org.kvflow.decode.TransferRejectedException;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;

/**
 * PD transfer backend {@code tcp} (SPEC §10.2): sends each rank's owned pages to a
 * {@link DecodeServer} by logical page position, a CRC32C per page, over one reactor-netty
 * connection. Runs are split into frames of at most {@link #FRAME_BYTES}; at most four frames are
 * in flight before the sender waits for the oldest reply, so the decode side's pace is the
 * sender's (backpressure end to end) while both sides work at once. A call that gets no
 * reply within {@code timeout}, or whose connection breaks, throws
 * {@link DecodeUnreachableException} and drops the connection; the next call reconnects (a
 * restarted decode server is picked up). Calls block: run them off Reactor's non-blocking threads.
 * Thread-safe (calls are serialized).
 */
public final class TcpTransferBackend implements TransferBackend, AutoCloseable {
    private static final byte[] CLOSED = new byte[0];
    /** Largest frame the backend sends; larger runs are split into frames of whole pages. */
    public static final int FRAME_BYTES = Frames.MAX_FRAME;
    /** PAGES frames in flight before the sender waits for the oldest reply. */
    private static final int WINDOW = 4;

    private final String host;
    private final int port;
    private final int pageSize;
    private final @Nullable KvLayout layout;
    private final int prefillCp;
    private final Duration timeout;
    private final @Nullable SslContext tls;
    private @Nullable Connection connection;
    private Replies replies = new Replies();
    private long bytesSent;

    /**
     * @param layout the row layout of the pages, or null to send page placements only
     */
    public TcpTransferBackend(String host, int port, int pageSize, @Nullable KvLayout layout, int prefillCp, Duration timeout) {
        this(host, port, pageSize, layout, prefillCp, timeout, null);
    }

    /**
     * @param layout the row layout of the pages, or null to send page placements only
     * @param tls    this client's certificate and key and the CA of the decode server, or null for plain TCP
     */
    public TcpTransferBackend(String host, int port, int pageSize, @Nullable KvLayout layout, int prefillCp, Duration timeout,
                              @Nullable TransferTls tls) {
        this.tls = tls == null ? null : tls.clientContext();
        this.host = Objects.requireNonNull(host, "host");
        this.port = port;
        this.pageSize = pageSize;
        this.layout = layout;
        this.prefillCp = prefillCp;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
    }

    /** Connects and shakes hands now (otherwise the first call does). */
    public synchronized TcpTransferBackend connect() {
        connection();
        return this;
    }

    @Override
    public synchronized long[] open(String requestId, int pageCount, int senders) {
        Frames.Reader r = call(new Frames.Writer(Frames.OPEN, 64).str(requestId).i32(pageCount).i32(senders).bytes(), "OPEN " + requestId);
        long[] pages = new long[r.i32()];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = r.i64();
        }
        return pages;
    }

    @Override
    public synchronized void send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
        boolean data = source != null && layout != null;
        long perPage = data ? (long) source.layers() * (source.mlaPageBytes() + source.indexPageBytes()) : 0;
        int pagesPerFrame = data ? (int) Math.max(1, Frames.MAX_FRAME / perPage) : Integer.MAX_VALUE;
        String what = "PAGES " + requestId + " rank " + rank + " decode pages " + run.dstStart() + ".." + (run.dstStart() + run.length() - 1);
        int inFlight = 0;
        RuntimeException refused = null;
        for (int done = 0; done < run.length(); done += pagesPerFrame) {
            int length = Math.min(pagesPerFrame, run.length() - done);
            long src = run.srcStart() + done;
            ByteBuf frame = pagesFrame(requestId, rank, run.dstStart() + done, length, (int) src, data ? source : null);
            bytesSent += frame.readableBytes();
            write(frame, what);
            if (++inFlight == WINDOW) {
                refused = firstRefusal(refused, what);
                inFlight--;
            }
        }
        for (; inFlight > 0; inFlight--) {
            refused = firstRefusal(refused, what);
        }
        if (refused != null) {
            throw refused;
        }
    }

    @Override
    public synchronized void complete(String requestId, int rank) {
        call(new Frames.Writer(Frames.COMPLETE, 64).str(requestId).i32(rank).bytes(), "COMPLETE " + requestId + " rank " + rank);
    }

    @Override
    public synchronized void abort(String requestId) {
        try {
            call(new Frames.Writer(Frames.ABORT, 64).str(requestId).bytes(), "ABORT " + requestId);
        } catch (DecodeUnreachableException e) {
            // the decode side is gone: nothing of this request is left to free there
        }
    }

    /**
     * A PAGES frame written straight into a pooled Netty buffer (the store reads its pages into it: one copy of the page bytes):
     * header, a CRC32C per page, then each layer's MLA bytes of the run, then each layer's indexer bytes.
     */
    private static ByteBuf pagesFrame(String requestId, int rank, long dstStart, int length, int src, @Nullable PageStore source) {
        byte[] id = requestId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long data = source == null ? 0 : (long) length * source.layers() * (source.mlaPageBytes() + source.indexPageBytes());
        int size = Math.toIntExact(4 + 1 + 4 + id.length + 4 + 8 + 4 + 1 + 4L * length + data);
        ByteBuf buf = ByteBufAllocator.DEFAULT.directBuffer(size);
        buf.writeIntLE(size - 4).writeByte(Frames.PAGES).writeIntLE(id.length).writeBytes(id).writeIntLE(rank).writeLongLE(dstStart)
                .writeIntLE(length).writeByte(source == null ? 0 : 1);
        for (int k = 0; k < length; k++) {
            buf.writeIntLE(source == null ? 0 : DecodeServer.pageCrc(source, src + k));
        }
        if (source != null) {
            for (KvComponent component : KvComponent.values()) {
                int bytes = length * source.pageBytes(component);
                for (int l = 0; l < source.layers(); l++) {
                    source.readPages(l, component, src, length, buf.nioBuffer(buf.writerIndex(), bytes));
                    buf.writerIndex(buf.writerIndex() + bytes);
                }
            }
        }
        return buf;
    }

    /** The decode side's digest of a request's valid rows ({@code DecodeReceiver#digest}), and whether it is ready. */
    public synchronized Digest digest(String requestId, long seqLen) {
        Frames.Reader r = call(new Frames.Writer(Frames.DIGEST, 64).str(requestId).i64(seqLen).bytes(), "DIGEST " + requestId);
        return new Digest(r.i64(), r.i32(), r.u8() == 1);
    }

    /** Pages the decode side refused, and its open sessions. */
    public synchronized long[] stats() {
        Frames.Reader r = call(new Frames.Writer(Frames.STATS, 0).bytes(), "STATS");
        return new long[] {r.i64(), r.i32()};
    }

    /** Frame bytes sent so far (KV, checksums and headers). */
    public synchronized long bytesSent() {
        return bytesSent;
    }

    /** A request's digest at the decode side. */
    public record Digest(long crc, int writtenPages, boolean ready) {}

    @Override
    public synchronized void close() {
        disconnect();
    }

    private Frames.Reader call(byte[] frame, String what) {
        return call(Unpooled.wrappedBuffer(frame), what);
    }

    private Frames.Reader call(ByteBuf frame, String what) {
        write(frame, what);
        return awaitReply(what);
    }

    /** Waits for the next reply; a refusal is kept (the first one wins) so the window drains before it is thrown. */
    private @Nullable RuntimeException firstRefusal(@Nullable RuntimeException first, String what) {
        try {
            awaitReply(what);
            return first;
        } catch (TransferRejectedException e) {
            return first != null ? first : e;
        }
    }

    private void write(ByteBuf frame, String what) {
        Connection c;
        try {
            c = connection();
        } catch (RuntimeException e) {
            frame.release();
            throw e;
        }
        try {
            c.outbound().send(Mono.just(frame)).then().block(timeout);
        } catch (RuntimeException e) {
            disconnect();
            throw new DecodeUnreachableException(what + ": sending to decode at " + host + ":" + port + " failed: " + e.getMessage(), e);
        }
    }

    private Frames.Reader awaitReply(String what) {
        byte[] reply;
        try {
            reply = replies.next(timeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            disconnect();
            throw new DecodeUnreachableException(what + ": interrupted waiting for decode", e);
        }
        if (reply == null || reply == CLOSED) {
            disconnect();
            throw new DecodeUnreachableException(what + ": " + (reply == null ? "no reply from decode at " + host + ":" + port
                    + " within " + timeout.toMillis() + " ms" : "decode at " + host + ":" + port + " closed the connection"));
        }
        Frames.Reader r = new Frames.Reader(reply);
        if (r.type() == Frames.REJECT) {
            r.skipType();
            String code = r.str();
            String message = r.str();
            if (code.equals("E-PD-4") || code.equals("E-PD-3")) {
                disconnect();
                throw new TransferHandshakeException(code, message);
            }
            throw new TransferRejectedException(subject(what), code + ": " + message);
        }
        return r.skipType();
    }

    /** The request a call's description names ({@code "OPEN r5"} → {@code r5}). */
    private static String subject(String what) {
        String[] words = what.split(" ");
        return words.length > 1 ? words[1] : what;
    }

    private Connection connection() {
        if (connection != null && !connection.isDisposed()) {
            return connection;
        }
        Connection c;
        try {
            TcpClient client = TcpClient.create().host(host).port(port);
            if (tls != null) {
                SslContext context = tls;
                client = client.secure(spec -> spec.sslContext(context));
            }
            c = client
                    .doOnConnected(conn -> conn.addHandlerLast(new LengthFieldBasedFrameDecoder(ByteOrder.LITTLE_ENDIAN,
                            Frames.MAX_FRAME + 16, 0, 4, 0, 4, true)))
                    .connectNow(timeout);
        } catch (RuntimeException e) {
            throw new DecodeUnreachableException("cannot connect to decode at " + host + ":" + port + ": " + e.getMessage(), e);
        }
        Replies mailbox = new Replies();
        c.inbound().receive().asByteArray().subscribe(mailbox::put, error -> mailbox.put(CLOSED), () -> mailbox.put(CLOSED));
        replies = mailbox;
        connection = c;
        int mlaRow = layout == null ? 0 : layout.mlaRowBytes();
        int indexRow = layout == null ? 0 : layout.indexRowBytes();
        int layers = layout == null ? 0 : layout.shape().layers();
        int dtype = layout == null ? 0 : layout.dtype().ordinal();
        Frames.Reader hello = call(new Frames.Writer(Frames.HELLO, 32).i32(Frames.MAGIC).i32(pageSize).u8(dtype).i32(layers)
                .i32(mlaRow).i32(indexRow).i32(prefillCp).bytes(), "HELLO");
        int decodeCp = hello.i32();
        if (decodeCp != 1) {
            disconnect();
            throw new TransferHandshakeException("E-PD-3", "decode side must be non-CP (it advertises attn_cp_size " + decodeCp + ")");
        }
        return c;
    }

    private void disconnect() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            c.disposeNow(Duration.ofSeconds(1));
        }
    }

    /**
     * One connection's replies, handed from Netty's event loop to the caller. Putting never
     * blocks (no lock to wait for on the event loop); a fresh mailbox per connection keeps a
     * dropped connection's late close signal out of the next one.
     */
    private static final class Replies {
        private final ConcurrentLinkedQueue<byte[]> queue = new ConcurrentLinkedQueue<>();
        private final Semaphore available = new Semaphore(0);

        void put(byte[] reply) {
            queue.add(reply);
            available.release();
        }

        @Nullable byte[] next(Duration timeout) throws InterruptedException {
            return available.tryAcquire(timeout.toMillis(), TimeUnit.MILLISECONDS) ? queue.poll() : null;
        }
    }
}
