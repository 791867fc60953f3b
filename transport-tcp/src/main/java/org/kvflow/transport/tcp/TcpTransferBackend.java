package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.handler.ssl.SslContext;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.decode.TransferRejectedException;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.TransferBackend;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.netty.tcp.TcpClient;

/**
 * PD transfer backend {@code tcp} (contract §10.2): sends each rank's owned pages to a
 * {@link DecodeServer} by logical page position, a CRC32C per page, over reactor-netty
 * connections, without blocking a thread: one connection per CP rank, so the ranks' streams run
 * side by side (as Mooncake sends per rank), each rank's pages and completion on its own, and the
 * request-wide calls (OPEN, ABORT, DIGEST, STATS) on rank 0's. Every connection's HELLO carries the
 * same random client id, so the decode side lets all of them act on the requests this backend
 * opened and no other peer; under mutual TLS each request id goes out prefixed with this client's
 * certificate name ({@link #wire}), as the server requires. Runs are split into frames of at most
 * {@link #FRAME_BYTES}, each built (its pages copied out of the store and checksummed) where the
 * machine has cores to spare on a worker of Reactor's bounded-elastic scheduler, so the
 * connection's event loop only writes (see {@code FrameWorkers}); at most {@value #WINDOW} frames are built or
 * in flight before the next one is, so the decode side's pace is the sender's (backpressure end to end) while
 * both sides work at once (per connection). The decode side answers every frame in order; replies
 * are matched to frames by that order. A call that gets no reply within {@code timeout}, or whose
 * connection breaks, fails with {@link DecodeUnreachableException} and drops that connection; the
 * next call on it reconnects (a restarted decode server is picked up). A connection that cannot be
 * made sets a back-off (doubling from 50 ms to 2 s) during which calls fail at once, counted. Calls may overlap; on one
 * connection frames go out in the order the calls write them.
 */
public final class TcpTransferBackend implements TransferBackend, AutoCloseable {
    /** Largest frame the backend sends; larger runs are split into frames of whole pages. */
    public static final int FRAME_BYTES = Frames.MAX_FRAME;
    /**
     * PAGES frames in flight before the sender waits for the oldest reply (at most 32 MiB a
     * connection). With eight, and the decode server reading four ahead, one connection kept
     * up with a plain socket where four fell behind it in the same runs (docs/benchmarks.md, D28):
     * with four, the sender waited on replies.
     */
    private static final int WINDOW = 8;
    /** The first wait after a failed connection; each further failure doubles it, up to {@link #MAX_BACKOFF}. */
    static final Duration FIRST_BACKOFF = ConnectBackoff.FIRST;
    /** The longest wait between connection attempts to a decode side that stays down. */
    static final Duration MAX_BACKOFF = ConnectBackoff.MAX;

    private final String host;
    private final int port;
    private final int pageSize;
    private final @Nullable KvLayout layout;
    private final int prefillCp;
    private final Duration timeout;
    private final @Nullable SslContext tls;
    /** What this client's request ids begin with on the decode side: its certificate's name and a slash under mutual TLS, else nothing. */
    private final String idPrefix;
    /** One connection per CP rank: rank {@code r} sends on lane {@code r}; request-wide calls use lane 0. */
    private final List<AtomicReference<@Nullable Mono<DecodeConnection>>> lanes;
    private final byte[] clientId = new byte[Frames.CLIENT_ID_BYTES];
    private final AtomicLong bytesSent = new AtomicLong();
    /** When a connection may be tried again after failed attempts. */
    private final ConnectBackoff backoff = new ConnectBackoff();
    /** Set once by {@link #close()}: no connection is made after it. */
    private volatile boolean closed;
    /** Where PAGES frames are built ({@link FrameWorkers}). */
    private final Scheduler frameWork = FrameWorkers.scheduler();
    /** The engine that writes page bytes into the decode pool, or null: they go in PAGES frames. */
    private final @Nullable PagePlacer placer;
    /** Pages an engine writes before one PLACED frame reports them. */
    private static final int PLACED_PAGES = 1024;

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
        this(host, port, pageSize, layout, prefillCp, timeout, tls, null);
    }

    /**
     * A backend whose page bytes go by {@code placer}'s engine, straight into the decode pool, while
     * its connections carry the handshake, OPEN, a PLACED frame per run of pages, COMPLETE and ABORT.
     *
     * @param layout the row layout of the pages, or null to send page placements only
     * @param tls    this client's certificate and key and the CA of the decode server, or null for plain TCP
     * @param placer the engine's prefill side (closed with this backend), or null for page bytes in PAGES frames
     */
    public TcpTransferBackend(String host, int port, int pageSize, @Nullable KvLayout layout, int prefillCp, Duration timeout,
                              @Nullable TransferTls tls, @Nullable PagePlacer placer) {
        this.placer = placer;
        this.tls = tls == null ? null : tls.clientContext();
        this.idPrefix = tls == null ? "" : tls.certificateName() + "/";
        this.host = Objects.requireNonNull(host, "host");
        this.port = port;
        this.pageSize = pageSize;
        this.layout = layout;
        this.prefillCp = prefillCp;
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        if (prefillCp < 1) {
            throw new IllegalArgumentException("prefill CP size must be >= 1, was " + prefillCp);
        }
        this.lanes = java.util.stream.IntStream.range(0, prefillCp).mapToObj(r -> new AtomicReference<@Nullable Mono<DecodeConnection>>()).toList();
        new java.security.SecureRandom().nextBytes(clientId);
    }

    /** Connects every rank's connection and shakes hands on each (otherwise the first call on each does). */
    public Mono<TcpTransferBackend> connect() {
        return connectLanes(0).thenReturn(this);
    }

    /** Every lane from {@code first} on connected and past HELLO (a lane already up costs nothing). */
    private Mono<Void> connectLanes(int first) {
        return Flux.range(first, lanes.size() - first)
                // each lane's refusal as a value: the first one fails the call and the others, arriving later, are let go
                // (as errors they would reach a flatMap that has already failed, which Reactor reports as dropped)
                .flatMap(lane -> session(lane).then(Mono.<Throwable>empty()).onErrorResume(Mono::just))
                .next()
                .flatMap(Mono::<Void>error)
                .timeout(timeout, Mono.error(() -> unreachable("HELLO", null)));
    }

    /**
     * {@code requestId} as the decode side knows it: under mutual TLS prefixed with this client's
     * certificate name ({@link TransferTls#certificateName()}), which the server requires.
     */
    public String wire(String requestId) {
        return idPrefix + requestId;
    }

    /** Connects every rank's connection that is not up yet (the ranks send right after), then opens the request on rank 0's. */
    @Override
    public Mono<long[]> open(String requestId, int pageCount, int senders) {
        return connectLanes(1).then(call(0, () -> Unpooled.wrappedBuffer(new Frames.Writer(Frames.OPEN, 64).str(wire(requestId)).i32(pageCount).i32(senders).bytes()),
                "OPEN " + requestId).map(r -> {
                    long[] pages = new long[r.i32()];
                    for (int i = 0; i < pages.length; i++) {
                        pages[i] = r.i64();
                    }
                    return pages;
                }));
    }

    @Override
    public Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
        boolean data = source != null && layout != null;
        long perPage = data ? (long) source.layers() * (source.mlaPageBytes() + source.indexPageBytes()) : 0;
        int pagesPerFrame = data ? (int) Math.max(1, Frames.MAX_FRAME / perPage) : Integer.MAX_VALUE;
        String what = "PAGES " + requestId + " rank " + rank + " decode pages " + run.dstStart() + ".." + (run.dstStart() + run.length() - 1);
        if (data && placer != null) {
            return place(placer, requestId, rank, run, source, what);
        }
        int frames = (int) ((run.length() + (long) pagesPerFrame - 1) / pagesPerFrame);
        // every frame's reply is awaited; the first refusal wins once the window has drained
        return Flux.range(0, frames)
                .flatMapSequential(f -> {
                    int done = f * pagesPerFrame;
                    int length = Math.min(pagesPerFrame, run.length() - done);
                    // built on a worker (FrameWorkers), not the connection's event loop: the window's frames are copied and
                    // checksummed side by side while the loop writes
                    return call(lane(rank), session(lane(rank)).publishOn(frameWork),
                            () -> pagesFrame(wire(requestId), rank, run.dstStart() + done, length, (int) (run.srcStart() + done), data ? source : null),
                            what).map(reply -> Optional.<TransferRejectedException>empty())
                            .onErrorResume(TransferRejectedException.class, e -> Mono.just(Optional.of(e)));
                }, WINDOW, 1)
                .filter(Optional::isPresent)
                .next()
                .flatMap(refusal -> Mono.<Void>error(refusal.get()));
    }

    /**
     * A run by the engine: at most {@link #PLACED_PAGES} pages at a time are written into the decode
     * pool, then reported in a PLACED frame with their checksums; the next part is written while that
     * frame's reply is awaited. The first refusal fails the call: a run the engine refuses (pages past
     * the pool it was told of) as a {@link TransferRejectedException}, an engine that fails as the
     * decode side being unreachable, and then the lane's connection is dropped, so the next call
     * shakes hands again and the engine is told the landing anew.
     */
    private Mono<Void> place(PagePlacer engine, String requestId, int rank, PageRun run, PageStore source, String what) {
        int lane = lane(rank);
        int parts = (run.length() + PLACED_PAGES - 1) / PLACED_PAGES;
        return session(lane).then(Flux.range(0, parts)
                .concatMap(p -> {
                    int done = p * PLACED_PAGES;
                    int length = Math.min(PLACED_PAGES, run.length() - done);
                    long dstStart = run.dstStart() + done;
                    return engine.place(lane, source, run.srcStart() + done, dstStart, length)
                            .onErrorMap(IllegalArgumentException.class, e -> new TransferRejectedException(requestId, e.getMessage()))
                            .onErrorMap(e -> !(e instanceof DecodeUnreachableException || e instanceof TransferRejectedException), e -> unreachable(what, e))
                            // the engine may have dropped its endpoint (a put that never completed): the next call shakes hands again
                            .doOnError(DecodeUnreachableException.class, e -> drop(lane))
                            .map(crcs -> {
                                Frames.Writer w = new Frames.Writer(Frames.PLACED, 64 + 4 * length).str(wire(requestId)).i32(rank).i64(dstStart).i32(length);
                                for (int crc : crcs) {
                                    w.i32(crc);
                                }
                                return w.bytes();
                            });
                })
                .flatMapSequential(frame -> call(lane, () -> Unpooled.wrappedBuffer(frame), what), 2)
                .then());
    }

    @Override
    public Mono<Void> complete(String requestId, int rank) {
        return call(lane(rank), () -> Unpooled.wrappedBuffer(new Frames.Writer(Frames.COMPLETE, 64).str(wire(requestId)).i32(rank).bytes()),
                "COMPLETE " + requestId + " rank " + rank).then();
    }

    @Override
    public Mono<Void> abort(String requestId) {
        return call(0, () -> Unpooled.wrappedBuffer(new Frames.Writer(Frames.ABORT, 64).str(wire(requestId)).bytes()), "ABORT " + requestId).then()
                // the decode side is gone: nothing of this request is left to free there
                .onErrorResume(DecodeUnreachableException.class, e -> Mono.empty());
    }

    /**
     * A PAGES frame written straight into a pooled Netty buffer (the store reads its pages into it: one copy of the page bytes):
     * header, a CRC32C per page, then each layer's MLA bytes of the run, then each layer's indexer bytes. The CRCs are
     * computed from the frame's own bytes as each run lands, so the pages are read from the store once.
     */
    private static ByteBuf pagesFrame(String requestId, int rank, long dstStart, int length, int src, @Nullable PageStore source) {
        byte[] id = requestId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        long data = source == null ? 0 : (long) length * source.layers() * (source.mlaPageBytes() + source.indexPageBytes());
        int size = Math.toIntExact(4 + 1 + 4 + id.length + 4 + 8 + 4 + 1 + 4L * length + data);
        ByteBuf buf = ByteBufAllocator.DEFAULT.directBuffer(size);
        buf.writeIntLE(size - 4).writeByte(Frames.PAGES).writeIntLE(id.length).writeBytes(id).writeIntLE(rank).writeLongLE(dstStart)
                .writeIntLE(length).writeByte(source == null ? 0 : 1);
        int crcAt = buf.writerIndex();
        buf.writeZero(4 * length);
        if (source == null) {
            return buf;
        }
        // each page's CRC32C grows run by run, right after the run is copied in and while its bytes are still in cache
        CRC32C[] crcs = new CRC32C[length];
        Arrays.setAll(crcs, k -> new CRC32C());
        for (KvComponent component : KvComponent.values()) {
            int pageBytes = source.pageBytes(component);
            for (int l = 0; l < source.layers(); l++) {
                int at = buf.writerIndex();
                source.readPages(l, component, src, length, buf.nioBuffer(at, length * pageBytes));
                buf.writerIndex(at + length * pageBytes);
                for (int k = 0; k < length; k++) {
                    crcs[k].update(buf.nioBuffer(at + k * pageBytes, pageBytes));
                }
            }
        }
        for (int k = 0; k < length; k++) {
            buf.setIntLE(crcAt + 4 * k, (int) crcs[k].getValue());
        }
        return buf;
    }

    /** The decode side's digest of a request's valid rows ({@code DecodeReceiver#digest}), and whether it is ready. */
    public Mono<Digest> digest(String requestId, long seqLen) {
        return call(0, () -> Unpooled.wrappedBuffer(new Frames.Writer(Frames.DIGEST, 64).str(wire(requestId)).i64(seqLen).bytes()), "DIGEST " + requestId)
                .map(r -> new Digest(r.i64(), r.i32(), r.u8() == 1));
    }

    /** Pages the decode side refused, its open sessions, how many of them are ready, and the ready ones it freed unreleased. */
    public Mono<long[]> stats() {
        return call(0, () -> Unpooled.wrappedBuffer(new Frames.Writer(Frames.STATS, 0).bytes()), "STATS")
                .map(r -> new long[] {r.i64(), r.i32(), r.i32(), r.i64()});
    }

    /**
     * Tells the decode side a ready request was taken: its pages go back to the decode pool (what a
     * decode consumer on another process sends when it is done with a request).
     *
     * @param requestId the ready request
     * @return completes when the decode side acknowledged; fails with its refusal when the request is not ready
     */
    public Mono<Void> release(String requestId) {
        return call(0, () -> Unpooled.wrappedBuffer(new Frames.Writer(Frames.RELEASE, 64).str(wire(requestId)).bytes()), "RELEASE " + requestId).then();
    }

    /** Frame bytes sent so far (KV, checksums and headers). */
    public long bytesSent() {
        return bytesSent.get();
    }

    /** A request's digest at the decode side. */
    public record Digest(long crc, int writtenPages, boolean ready) {}

    /**
     * Drops every connection (without waiting for them to close). A closed backend never connects
     * again: every later call fails with {@link DecodeUnreachableException}, and a late ABORT
     * completes with nothing to do. Idempotent.
     */
    @Override
    public void close() {
        closed = true;
        dropAll();
        if (placer != null) {
            placer.close();
        }
    }

    /** Drops every connection; the next call connects again (unless the backend is closed). */
    private void dropAll() {
        for (int lane = 0; lane < lanes.size(); lane++) {
            drop(lane);
        }
    }

    /** Drops one rank's connection; the next call on it connects again. */
    private void drop(int lane) {
        Mono<DecodeConnection> current = lanes.get(lane).getAndSet(null);
        if (current != null) {
            current.subscribe(DecodeConnection::dispose, e -> { });
        }
    }

    /** The connection rank {@code rank} sends on. */
    private int lane(int rank) {
        return Math.floorMod(rank, lanes.size());
    }

    /**
     * One call: the frame is built and written on the session, in call order, and its reply
     * parsed. A refusal is a {@link TransferRejectedException} (a handshake refusal a
     * {@link TransferHandshakeException}, which drops the connection); no reply within the timeout
     * or a broken connection is a {@link DecodeUnreachableException} and drops the connection.
     */
    private Mono<Frames.Reader> call(int lane, Supplier<ByteBuf> frame, String what) {
        return call(lane, session(lane), frame, what);
    }

    /** A call on lane {@code lane}'s session as {@code session} hands it over (the frame is built on the thread it emits on). */
    private Mono<Frames.Reader> call(int lane, Mono<DecodeConnection> session, Supplier<ByteBuf> frame, String what) {
        return session.flatMap(s -> s.exchange(frame, what))
                .timeout(timeout, Mono.defer(() -> {
                    drop(lane); // forget the connection: the next call on it reconnects
                    return Mono.error(unreachable(what, null));
                }))
                .map(reply -> parse(reply, what));
    }

    private Frames.Reader parse(byte[] reply, String what) {
        Frames.Reader r = new Frames.Reader(reply);
        if (r.type() == Frames.REJECT) {
            r.skipType();
            String code = r.str();
            String message = r.str();
            if (code.equals("E-PD-4") || code.equals("E-PD-3") || code.equals("E-PD-ENGINE")) {
                dropAll(); // forget the connections, not the backend: the next call shakes hands again (closing it here raced the other lanes' handshakes)
                throw new TransferHandshakeException(code, message);
            }
            throw new TransferRejectedException(subject(what), code + ": " + message);
        }
        return r.skipType();
    }

    private DecodeUnreachableException closedError() {
        return new DecodeUnreachableException("decode at " + host + ":" + port + ": the transfer client is closed");
    }

    private DecodeUnreachableException unreachable(String what, @Nullable Throwable cause) {
        String reason = cause == null ? "no reply from decode at " + host + ":" + port + " within " + timeout.toMillis() + " ms"
                : cause.getMessage();
        return cause == null ? new DecodeUnreachableException(what + ": " + reason) : new DecodeUnreachableException(what + ": " + reason, cause);
    }

    /** The request a call's description names ({@code "OPEN r5"} → {@code r5}). */
    private static String subject(String what) {
        String[] words = what.split(" ");
        return words.length > 1 ? words[1] : what;
    }

    /** Lane {@code lane}'s live connection, connecting and shaking hands first when there is none (or the last one broke). */
    private Mono<DecodeConnection> session(int lane) {
        AtomicReference<@Nullable Mono<DecodeConnection>> slot = lanes.get(lane);
        return Mono.defer(() -> {
            if (closed) {
                return Mono.error(closedError());
            }
            Mono<DecodeConnection> current = slot.get();
            if (current == null) {
                Mono<DecodeConnection> fresh = connectSession(lane).cache();
                current = slot.compareAndSet(null, fresh) ? fresh : slot.get();
                if (closed) { // closed while this call connected: the session it made is dropped too
                    drop(lane);
                    return Mono.error(closedError());
                }
                if (current == null) {
                    return session(lane);
                }
            }
            Mono<DecodeConnection> used = current;
            return used.flatMap(s -> {
                if (s.isClosed()) {
                    slot.compareAndSet(used, null);
                    return session(lane);
                }
                return Mono.just(s);
            }).onErrorResume(e -> {
                slot.compareAndSet(used, null);
                return Mono.error(e);
            });
        });
    }

    /**
     * A new connection, unless the last attempts failed and their back-off has not passed
     * ({@link ConnectBackoff}): then the call fails at once, counted in {@link #refusedInBackoff()}.
     */
    private Mono<DecodeConnection> connectSession(int lane) {
        return Mono.defer(() -> {
            long wait = backoff.waitBeforeAttempt();
            if (wait > 0) {
                return Mono.error(new DecodeUnreachableException("decode at " + host + ":" + port + " is down (" + consecutiveConnectFailures()
                        + " connection attempts failed in a row); the next attempt is in " + Math.max(1, wait / 1_000_000) + " ms"));
            }
            return attemptSession(lane).doOnSuccess(s -> backoff.attempted(true)).doOnError(DecodeUnreachableException.class, e -> backoff.attempted(false));
        });
    }

    /** {@return connection attempts that failed in a row, 0 once one succeeds} */
    public long consecutiveConnectFailures() {
        return backoff.failedInARow();
    }

    /** {@return calls that failed at once because the decode side was down and its back-off had not passed} */
    public long refusedInBackoff() {
        return backoff.refused();
    }

    private Mono<DecodeConnection> attemptSession(int lane) {
        TcpClient client = TcpClient.create().host(host).port(port);
        if (tls != null) {
            SslContext context = tls;
            client = client.secure(spec -> spec.sslContext(context));
        }
        int mlaRow = layout == null ? 0 : layout.mlaRowBytes();
        int indexRow = layout == null ? 0 : layout.indexRowBytes();
        int layers = layout == null ? 0 : layout.shape().layers();
        int dtype = layout == null ? 0 : layout.dtype().ordinal();
        return client
                .doOnConnected(conn -> conn.addHandlerLast(new FrameReader(Frames.MAX_FRAME + 16)))
                .connect()
                .onErrorMap(e -> !(e instanceof DecodeUnreachableException),
                        e -> new DecodeUnreachableException("cannot connect to decode at " + host + ":" + port + ": " + e.getMessage(), e))
                .map(c -> new DecodeConnection(c, host + ":" + port, bytesSent))
                .flatMap(s -> s.exchange(() -> Unpooled.wrappedBuffer(hello(dtype, layers, mlaRow, indexRow)), "HELLO")
                        .map(reply -> {
                            Frames.Reader r = parse(reply, "HELLO");
                            int decodeCp = r.i32();
                            if (decodeCp != 1) {
                                throw new TransferHandshakeException("E-PD-3", "decode side must be non-CP (it advertises attn_cp_size " + decodeCp + ")");
                            }
                            if (placer != null && layout != null) {
                                byte[] landing = new byte[r.i32()];
                                r.raw(landing, 0, landing.length);
                                placer.connected(lane, landing);
                            }
                            return s;
                        })
                        .doOnError(e -> s.dispose()));
    }

    /** The HELLO frame: this client's page layout, CP size and id, and the engine when page bytes go by one. */
    private byte[] hello(int dtype, int layers, int mlaRow, int indexRow) {
        Frames.Writer w = new Frames.Writer(Frames.HELLO, 48).i32(Frames.MAGIC).i32(pageSize).u8(dtype).i32(layers).i32(mlaRow).i32(indexRow)
                .i32(prefillCp).raw(clientId, 0, clientId.length);
        if (placer != null && layout != null) {
            w.str(placer.engine());
        }
        return w.bytes();
    }
}
