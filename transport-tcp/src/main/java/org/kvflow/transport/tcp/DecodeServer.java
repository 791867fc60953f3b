package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.handler.timeout.ReadTimeoutException;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.handler.ssl.SslContext;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.pages.KvComponent;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.decode.DecodePoolFullException;
import org.kvflow.decode.TransferRejectedException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.netty.util.ReferenceCountUtil;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.Disposable;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import reactor.netty.Connection;
import reactor.netty.DisposableServer;
import reactor.netty.channel.AbortedException;
import reactor.netty.tcp.TcpServer;

/**
 * The decode instance's TCP endpoint (non-CP, full layout, contract §8.1): answers the kvflow PD
 * protocol ({@link Frames}) for a {@link DecodeReceiver}. It refuses a prefill of another page
 * size or row layout at the handshake (E-PD-4), checks every page's CRC32C, and rejects (and
 * counts) pages for unknown requests or positions without writing them. Where the machine has
 * cores to spare (see {@code FrameWorkers}), a connection's event loop only reads frames and each is
 * checked and copied into the decode pages on a worker, in arrival order, with at most
 * {@value #FRAMES_AHEAD} more read meanwhile.
 *
 * <p>It trusts nothing a peer sends. Every length, count and rank read from a frame is checked
 * against the frame's remaining bytes and the request's negotiated size before anything is
 * allocated. A request belongs to the prefill client that opened it until it is ready: every
 * connection whose HELLO carried the same client id may send its PAGES, COMPLETE and ABORT (a
 * client sends each CP rank's pages on a connection of its own), and any other connection is
 * refused ({@code E-PD-OWNER}); once ready it is decode's, and whoever consumes it may release it
 * with RELEASE (or ABORT); a ready request nobody releases within {@link Limits#readyTtl()} is freed
 * and counted. DIGEST and STATS are read-only and open to any connection. When a client's last
 * connection closes, every request it opened that is not ready is released. A connection that has not said HELLO within {@link Limits#handshake()}, or sends
 * nothing for {@link Limits#idle()}, is closed; past {@link Limits#maxConnections()} a new
 * connection is closed at once. Each refusal is one rate-limited log line, and the peer gets a
 * code and a short reason, never a stack trace or a class name.
 */
public final class DecodeServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(DecodeServer.class);
    /**
     * Frames a connection reads ahead of the one being checked and copied (each at most
     * {@link Frames#MAX_FRAME}): four, so a client's window of eight keeps the socket full while the
     * worker checks (docs/benchmarks.md, the fourth I/O round).
     */
    private static final int FRAMES_AHEAD = 4;
    /** Longest request id a frame may carry, in UTF-8 bytes. */
    static final int MAX_ID_BYTES = 256;
    /** Largest prefill CP size a client may announce: it bounds the senders of a request, so the state a rank's frames can grow. */
    static final int MAX_PREFILL_CP = 1024;

    /**
     * How long a connection may wait before HELLO and between frames, how many may be open at once,
     * and how long a ready request may wait for its decode consumer before its pages are freed.
     */
    public record Limits(Duration handshake, Duration idle, int maxConnections, Duration readyTtl) {
        /** 10 s to say HELLO, 2 min idle, 64 connections, 10 min for a ready request. */
        public static final Limits DEFAULT = new Limits(Duration.ofSeconds(10), Duration.ofMinutes(2), 64, Duration.ofMinutes(10));

        /** @throws IllegalArgumentException if a duration is not positive or the cap is below 1 */
        public Limits {
            if (!positive(handshake) || !positive(idle) || !positive(readyTtl) || maxConnections < 1) {
                throw new IllegalArgumentException("decode server limits handshake=" + handshake + " idle=" + idle + " maxConnections="
                        + maxConnections + " readyTtl=" + readyTtl + ": durations must be positive and the cap at least 1");
            }
        }

        /** The limits with the default ready TTL. */
        public Limits(Duration handshake, Duration idle, int maxConnections) {
            this(handshake, idle, maxConnections, DEFAULT.readyTtl());
        }

        private static boolean positive(Duration d) {
            return !d.isNegative() && !d.isZero();
        }

        /** How often ready requests are checked against the TTL: a quarter of it, from 10 ms to 1 s. */
        Duration sweepEvery() {
            return Duration.ofMillis(Math.clamp(readyTtl.toMillis() / 4, 10, 1000));
        }
    }

    private final DecodeReceiver receiver;
    private final DisposableServer server;
    /** Frees ready requests nobody released within the TTL. */
    private final Disposable readySweep;
    private final AtomicLong rejectedPages = new AtomicLong();
    private final AtomicInteger connections = new AtomicInteger();
    /** The open connections, closed with the server. */
    private final Set<Connection> live = ConcurrentHashMap.newKeySet();
    private final RefusalLog refusals = new RefusalLog(LOG::warn, 10, System::nanoTime);
    /** {@code openssl} or {@code jdk}, null without TLS ({@link #tlsProvider()}). */
    private final @Nullable String tlsProvider;
    /** Prefill clients with a connection open, by client id; guarded by itself. */
    private final Map<String, Client> clients = new HashMap<>();

    /** One prefill client: how many of its connections are open, and the requests it opened. */
    private static final class Client {
        final Set<String> owned = ConcurrentHashMap.newKeySet();
        int connections;
    }

    private DecodeServer(DecodeReceiver receiver, String host, int port, Limits limits, @Nullable TransferTls tls) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        if (tls == null && !loopback(host)) {
            throw new IllegalArgumentException("decode server on " + host + ": an address beyond loopback needs mutual TLS (the server's"
                    + " certificate and key, and the CA that signs the prefill clients' certificates)");
        }
        Scheduler frameWork = FrameWorkers.scheduler();
        TcpServer tcp = TcpServer.create().host(host).port(port);
        if (tls != null) {
            SslContext context = tls.serverContext();
            tcp = tcp.secure(spec -> spec.sslContext(context));
            this.tlsProvider = TlsProvider.nameOf(context);
        } else {
            this.tlsProvider = null;
        }
        this.server = tcp
                .doOnConnection(c -> {
                    int open = connections.incrementAndGet();
                    live.add(c);
                    c.onDispose(() -> {
                        connections.decrementAndGet();
                        live.remove(c);
                    });
                    if (open > limits.maxConnections()) {
                        refusals.refused(peer(c), "connection", open - 1 + " connections open, at most " + limits.maxConnections());
                        c.dispose();
                        return;
                    }
                    c.addHandlerFirst(new ReadTimeoutHandler(limits.idle().toMillis(), TimeUnit.MILLISECONDS));
                    FrameReader frames = new FrameReader(Frames.MAX_FRAME + 16);
                    c.addHandlerLast(frames);
                    if (tls == null) { // TLS decrypts into buffers of its own: only plain reads can land in the frame
                        frames.readInPlace(c.channel());
                    }
                })
                .handle((in, out) -> {
                    Session[] session = new Session[1];
                    ScheduledFuture<?>[] deadline = new ScheduledFuture<?>[1];
                    in.withConnection(c -> {
                        session[0] = new Session(peer(c));
                        // on the connection's own event loop: timers there take no lock (BlockHound-clean)
                        deadline[0] = c.channel().eventLoop().schedule(() -> {
                            if (!session[0].hello) {
                                refusals.refused(session[0].peer, "connection", "no HELLO within " + limits.handshake().toMillis() + " ms");
                                c.dispose();
                            }
                        }, limits.handshake().toMillis(), TimeUnit.MILLISECONDS);
                    });
                    Session s = session[0];
                    // each frame is checked and copied into the decode pages on a worker (FrameWorkers), in arrival order,
                    // while the event loop reads the next ones: reading and the checks then run side by side
                    Flux<byte[]> replies = in.receive().retain()
                            // a read failure is counted here, on the loop, before the worker could see the connection closed
                            .onErrorResume(e -> {
                                refusedRead(s, e, limits.idle());
                                return Mono.empty();
                            })
                            .publishOn(frameWork, FRAMES_AHEAD)
                            .map(frame -> {
                                try {
                                    return s.answer(frame);
                                } finally {
                                    frame.release();
                                }
                            })
                            .doOnDiscard(ByteBuf.class, ReferenceCountUtil::safeRelease);
                    return out.sendByteArray(replies).then()
                            .onErrorResume(e -> {
                                refusedRead(s, e, limits.idle());
                                return Mono.empty();
                            })
                            .doFinally(signal -> {
                                deadline[0].cancel(false);
                                s.closed();
                            });
                })
                .bindNow();
        long every = limits.sweepEvery().toMillis();
        Duration ttl = limits.readyTtl();
        this.readySweep = Schedulers.single().schedulePeriodically(() -> {
            for (String id : receiver.expireReady(ttl)) {
                LOG.info("request {} was ready for {} ms and nobody released it: its pages are freed", id, ttl.toMillis());
            }
        }, every, every, TimeUnit.MILLISECONDS);
    }

    /** A connection that failed (idle too long, or broken), counted and logged; one this side closed was counted when it closed it. */
    private void refusedRead(Session s, Throwable e, Duration idle) {
        if (!(e instanceof AbortedException)) {
            refusals.refused(s.peer, "connection", e instanceof ReadTimeoutException ? "idle for " + idle.toMillis() + " ms" : e.toString());
        }
    }

    private static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("decode server: unknown bind address " + host, e);
        }
    }

    private static String peer(Connection c) {
        return String.valueOf(c.channel().remoteAddress());
    }

    /** Starts a server on {@code host:port} ({@code 0}: any free port) with the default {@link Limits}. */
    public static DecodeServer start(DecodeReceiver receiver, String host, int port) {
        return start(receiver, host, port, Limits.DEFAULT);
    }

    /** Starts a server on {@code host:port} ({@code 0}: any free port), without TLS: loopback addresses only. */
    public static DecodeServer start(DecodeReceiver receiver, String host, int port, Limits limits) {
        return start(receiver, host, port, limits, null);
    }

    /**
     * Starts a server on {@code host:port} ({@code 0}: any free port) that requires, when
     * {@code tls} is given, a client certificate signed by its CA.
     *
     * @throws IllegalArgumentException if {@code host} is not a loopback address and {@code tls} is null
     */
    public static DecodeServer start(DecodeReceiver receiver, String host, int port, Limits limits, @Nullable TransferTls tls) {
        return new DecodeServer(receiver, host, port, Objects.requireNonNull(limits, "limits"), tls);
    }

    public int port() {
        return server.port();
    }

    public DecodeReceiver receiver() {
        return receiver;
    }

    /**
     * The TLS the server's connections run on, in the words of {@code kvflow.transfer.tls}.
     *
     * @return {@code openssl} (BoringSSL) or {@code jdk}; null for a server without TLS
     */
    public @Nullable String tlsProvider() {
        return tlsProvider;
    }

    /** Pages refused so far (unknown request or position, checksum mismatch), never written. */
    public long rejectedPages() {
        return rejectedPages.get() + receiver.rejectedPages();
    }

    /** Frames and connections refused so far, each logged or counted as held back. */
    public long refusals() {
        return refusals.total();
    }

    /** Connections open now. */
    public int connections() {
        return connections.get();
    }

    /** Blocks until the server is closed. */
    public void awaitClose() {
        server.onDispose().block();
    }

    @Override
    public void close() {
        readySweep.dispose();
        server.disposeNow();
        live.forEach(Connection::dispose); // a closed server serves no one, not even the peers already connected
    }

    /** One connection: the handshake state and the client it speaks for. */
    private final class Session {
        private final String peer;
        private @Nullable Client client;
        private @Nullable String clientId;
        private volatile boolean hello;
        private int layers;
        private int prefillCp;

        Session(String peer) {
            this.peer = peer;
        }

        byte[] answer(ByteBuf frame) {
            try {
                if (frame.readableBytes() == 0) {
                    throw new Refusal("E-PD-0", "empty frame");
                }
                byte type = frame.getByte(frame.readerIndex());
                if (!hello && type != Frames.HELLO) {
                    throw new Refusal("E-PD-0", "handshake first");
                }
                if (type == Frames.PAGES) {
                    return pages(frame.skipBytes(1));
                }
                byte[] bytes = new byte[frame.readableBytes()];
                frame.readBytes(bytes);
                Frames.Reader r = new Frames.Reader(bytes);
                r.skipType();
                return switch (type) {
                    case Frames.HELLO -> hello(r);
                    case Frames.OPEN -> open(r);
                    case Frames.COMPLETE -> {
                        String id = owned(r.id());
                        receiver.complete(id, r.i32());
                        yield Frames.ack();
                    }
                    case Frames.ABORT -> { // a ready request is decode's now: whoever consumes it may release it
                        String id = r.id();
                        if (!receiver.isReady(id)) {
                            owned(id);
                        }
                        receiver.release(id);
                        owner().owned.remove(id);
                        yield Frames.ack();
                    }
                    case Frames.DIGEST -> {
                        String id = r.id();
                        long seqLen = r.i64();
                        yield new Frames.Writer(Frames.DIGESTED, 13).i64(receiver.digest(id, seqLen)).i32(receiver.writtenPages(id))
                                .u8(receiver.isReady(id) ? 1 : 0).bytes();
                    }
                    case Frames.RELEASE -> { // decode took a ready request: its pages go back to the pool
                        String id = r.id();
                        if (!receiver.isReady(id)) {
                            throw new Refusal("E-PD-STATE", receiver.pageCount(id) == 0 ? "request " + id + " is not open"
                                    : "request " + id + " is not ready: RELEASE frees a ready request, ABORT ends a transfer");
                        }
                        receiver.release(id);
                        yield Frames.ack();
                    }
                    case Frames.STATS -> new Frames.Writer(Frames.STATISTICS, 24).i64(rejectedPages()).i32(receiver.openSessions())
                            .i32(receiver.readySessions()).i64(receiver.expiredSessions()).bytes();
                    default -> throw new Refusal("E-PD-0", "unknown frame type " + type);
                };
            } catch (Refusal e) {
                return refuse(e.code, e.getMessage(), e.getMessage());
            } catch (TransferRejectedException e) { // the requester knows its request: the reason alone goes back, the log names it
                return refuse("E-PD-PAGE", e.getMessage(), e.reason());
            } catch (DecodePoolFullException e) {
                return refuse("E-PD-POOL", e.getMessage(), e.reason());
            } catch (RuntimeException e) { // a frame shorter than its fields (BufferUnderflowException, IndexOutOfBoundsException)
                // Netty's bounds messages describe its buffer, not the frame: they never go to the peer or the log
                boolean ours = e.getMessage() != null && !(e instanceof IndexOutOfBoundsException) && !(e instanceof java.nio.BufferUnderflowException);
                String why = "malformed frame: " + (ours ? e.getMessage() : "fields run past its end");
                return refuse("E-PD-0", why, why);
            }
        }

        /** Logs {@code logged} and answers {@code sent}. */
        private byte[] refuse(String code, String logged, String sent) {
            refusals.refused(peer, code, logged);
            return Frames.reject(code, sent);
        }

        /** {@code id}, if this connection's client opened it; a request another client opened is refused. */
        private String owned(String id) {
            if (!owner().owned.contains(id) && receiver.pageCount(id) > 0) {
                throw new Refusal("E-PD-OWNER", "request " + id + " was opened by another client");
            }
            return id;
        }

        /** The client this connection joined at HELLO (every other frame comes after it). */
        private Client owner() {
            return java.util.Objects.requireNonNull(client, "a frame before HELLO");
        }

        private byte[] open(Frames.Reader r) {
            String id = r.id();
            int pageCount = r.i32();
            int senders = r.i32();
            if (senders < 1 || senders > prefillCp) {
                throw new TransferRejectedException(id, senders + " senders outside [1, " + prefillCp + "] (the prefill's CP size)");
            }
            long[] pages = receiver.open(id, pageCount, senders);
            owner().owned.add(id);
            Frames.Writer w = new Frames.Writer(Frames.OPENED, 4 + 8 * pages.length).i32(pages.length);
            for (long p : pages) {
                w.i64(p);
            }
            return w.bytes();
        }

        /** The connection closed: if it was its client's last, the requests the client opened and did not finish go back to the pool. */
        void closed() {
            Client c = client;
            if (c == null) {
                return;
            }
            synchronized (clients) {
                if (--c.connections > 0) {
                    return;
                }
                clients.remove(clientId);
            }
            for (String id : c.owned) {
                if (!receiver.isReady(id)) {
                    receiver.release(id);
                }
            }
            c.owned.clear();
        }

        /** This connection speaks for client {@code id} from now on. */
        private void join(String id) {
            if (client != null) {
                throw new Refusal("E-PD-0", "HELLO twice on one connection");
            }
            synchronized (clients) {
                Client c = clients.computeIfAbsent(id, k -> new Client());
                c.connections++;
                client = c;
                clientId = id;
            }
        }

        private byte[] hello(Frames.Reader r) {
            if (r.i32() != Frames.MAGIC) {
                throw new Refusal("E-PD-0", "not a kvflow PD client");
            }
            int pageSize = r.i32();
            int dtype = r.u8();
            int clientLayers = r.i32();
            int mlaRow = r.i32();
            int indexRow = r.i32();
            int cp = r.i32();
            KvLayout layout = receiver.layout();
            String mine = "decode page size " + receiver.pageSize() + (layout == null ? ", pages only"
                    : ", kv " + layout.dtype().wireName() + " (" + layout.mlaRowBytes() + " B rows, " + layout.shape().layers() + " layers)");
            boolean layoutMatches = layout == null ? mlaRow == 0
                    : layout.dtype().ordinal() == dtype && layout.mlaRowBytes() == mlaRow && layout.indexRowBytes() == indexRow
                    && layout.shape().layers() == clientLayers;
            if (pageSize != receiver.pageSize() || !layoutMatches) {
                throw new Refusal("E-PD-4", "page size / kv dtype mismatch: " + mine + "; prefill page size " + pageSize
                        + ", kv dtype code " + dtype + " (" + mlaRow + " B rows, " + clientLayers + " layers)");
            }
            if (cp < 1 || cp > MAX_PREFILL_CP) {
                throw new Refusal("E-PD-0", "prefill CP size " + cp + " outside [1, " + MAX_PREFILL_CP + "]");
            }
            byte[] id = new byte[Frames.CLIENT_ID_BYTES];
            r.raw(id, 0, id.length);
            join(java.util.HexFormat.of().formatHex(id));
            hello = true;
            layers = clientLayers;
            prefillCp = cp;
            return new Frames.Writer(Frames.HELLO_OK, 4).i32(1).bytes();
        }

        /**
         * A PAGES frame read straight from Netty's buffer: its lengths are checked against the
         * frame and the request before anything is allocated, every page's CRC32C is checked on
         * the received bytes, then the receiver checks the positions, and only then are the bytes
         * copied, once, into the decode pages.
         */
        private byte[] pages(ByteBuf in) {
            in.order(ByteOrder.LITTLE_ENDIAN);
            int idLength = in.readIntLE();
            if (idLength < 0 || idLength > MAX_ID_BYTES || idLength > in.readableBytes()) {
                throw new Refusal("E-PD-0", "malformed PAGES frame: a request id of " + idLength + " bytes (at most " + MAX_ID_BYTES
                        + ", " + in.readableBytes() + " left in the frame)");
            }
            byte[] idBytes = new byte[idLength];
            in.readBytes(idBytes);
            String id = owned(new String(idBytes, java.nio.charset.StandardCharsets.UTF_8));
            int rank = in.readIntLE();
            long dstStart = in.readLongLE();
            int length = in.readIntLE();
            int flag = in.readByte();
            KvLayout layout = receiver.layout();
            if (flag != (layout == null ? 0 : 1)) { // pages with no bytes would read as written
                throw new Refusal("E-PD-0", "malformed PAGES frame: data flag " + flag + "; this decode side takes " + (layout == null ? "0 (pages only)" : "1 (with bytes)"));
            }
            boolean hasData = flag == 1;
            int bound = receiver.pageCount(id) > 0 ? receiver.pageCount(id) : receiver.capacityPages();
            if (length < 1 || length > bound || 4L * length > in.readableBytes()) {
                throw new Refusal("E-PD-0", "malformed PAGES frame: a run of " + length + " pages (request " + id + " may name at most "
                        + bound + ", " + in.readableBytes() / 4 + " checksums fit the frame)");
            }
            int[] crcs = new int[length];
            for (int i = 0; i < length; i++) {
                crcs[i] = in.readIntLE();
            }
            long[] dst = new long[length];
            for (int k = 0; k < length; k++) {
                dst[k] = dstStart + k;
            }
            long dataBytes = !hasData || layout == null ? 0
                    : (long) layers * length * (layout.mlaPageBytes(receiver.pageSize()) + layout.indexPageBytes(receiver.pageSize()));
            if (in.readableBytes() != dataBytes) {
                throw new Refusal("E-PD-0", "malformed PAGES frame: " + in.readableBytes() + " data bytes for " + length
                        + " pages; the layout takes " + dataBytes);
            }
            if (dataBytes == 0) {
                receiver.accept(id, rank, dst, null);
                return Frames.ack();
            }
            int mlaPage = (int) layout.mlaPageBytes(receiver.pageSize());
            int indexPage = (int) layout.indexPageBytes(receiver.pageSize());
            int mlaStart = in.readerIndex();
            int indexStart = mlaStart + layers * length * mlaPage;
            for (int k = 0; k < length; k++) {
                int crc = Frames.pageCrc(in, mlaStart, indexStart, layers, length, k, mlaPage, indexPage);
                if (crc != crcs[k]) {
                    rejectedPages.addAndGet(length);
                    throw new Refusal("E-PD-CRC", "request " + id + ": page " + dst[k] + " arrived with crc32c "
                            + Integer.toHexString(crc) + ", sent as " + Integer.toHexString(crcs[k]));
                }
            }
            receiver.accept(id, rank, dst, (store, pages) -> {
                for (int l = 0; l < layers; l++) {
                    for (int k = 0; k < length; k++) {
                        store.writePage(l, KvComponent.MLA, pages[k], in.nioBuffer(mlaStart + (l * length + k) * mlaPage, mlaPage));
                        store.writePage(l, KvComponent.INDEX, pages[k], in.nioBuffer(indexStart + (l * length + k) * indexPage, indexPage));
                    }
                }
            });
            return Frames.ack();
        }
    }
}
