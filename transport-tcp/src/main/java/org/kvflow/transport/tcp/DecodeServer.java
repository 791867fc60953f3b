package org.kvflow.transport.tcp;

import io.netty.buffer.ByteBuf;
import io.netty.handler.timeout.ReadTimeoutException;
import io.netty.handler.timeout.ReadTimeoutHandler;
import io.netty.handler.ssl.SslContext;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.kvflow.decode.DecodeReceiver;
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
 * refused ({@code E-PD-OWNER}). Under mutual TLS a client is also its certificate: a HELLO joins
 * the connections of the same client id and the same certificate, and a request id must begin with
 * the certificate's name and a slash ({@code "tenant-a/req-7"}, the name being the subject's CN), so
 * no client can open, or squat, another certificate's ids, nor DIGEST them. Once ready a request
 * is decode's, and whoever consumes it may release it with RELEASE (or ABORT); a ready request
 * nobody releases within {@link Limits#readyTtl()} is freed and counted. DIGEST and STATS are
 * read-only and open to any connection (DIGEST, under mutual TLS, to the request's own
 * certificate). When a client's last
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
     * how long a ready request may wait for its decode consumer before its pages are freed, and each
     * peer's share: connections open that have not said HELLO yet (so silent connections cannot take
     * every slot), connections one client may hold, and pages one client's requests may hold until
     * they are released (so one client cannot hold the pool).
     *
     * @param maxPending           connections open at once that have not said HELLO
     * @param connectionsPerClient connections one client id may hold (its prefill CP size needs one each)
     * @param pagesPerClient       decode pages one client's requests may hold, ready ones included, until released
     */
    public record Limits(Duration handshake, Duration idle, int maxConnections, Duration readyTtl, int maxPending, int connectionsPerClient,
                         int pagesPerClient) {
        /** 10 s to say HELLO, 2 min idle, 64 connections (half of them before HELLO), 10 min for a ready request, no cap per client. */
        public static final Limits DEFAULT = new Limits(Duration.ofSeconds(10), Duration.ofMinutes(2), 64, Duration.ofMinutes(10));

        /** @throws IllegalArgumentException if a duration is not positive or a cap is below 1 */
        public Limits {
            if (!positive(handshake) || !positive(idle) || !positive(readyTtl) || maxConnections < 1 || maxPending < 1 || connectionsPerClient < 1
                    || pagesPerClient < 1) {
                throw new IllegalArgumentException("decode server limits handshake=" + handshake + " idle=" + idle + " maxConnections="
                        + maxConnections + " readyTtl=" + readyTtl + " maxPending=" + maxPending + " connectionsPerClient=" + connectionsPerClient
                        + " pagesPerClient=" + pagesPerClient + ": durations must be positive and the caps at least 1");
            }
        }

        /** The limits with half the connections allowed before HELLO and no cap per client. */
        public Limits(Duration handshake, Duration idle, int maxConnections, Duration readyTtl) {
            this(handshake, idle, maxConnections, readyTtl, Math.max(1, maxConnections / 2), Integer.MAX_VALUE, Integer.MAX_VALUE);
        }

        /** The limits with the default ready TTL. */
        public Limits(Duration handshake, Duration idle, int maxConnections) {
            this(handshake, idle, maxConnections, DEFAULT.readyTtl());
        }

        /** {@return these limits with each peer's share set} */
        public Limits shares(int pending, int connectionsEach, int pagesEach) {
            return new Limits(handshake, idle, maxConnections, readyTtl, pending, connectionsEach, pagesEach);
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
    final AtomicLong rejectedPages = new AtomicLong();
    private final AtomicInteger connections = new AtomicInteger();
    /** Connections open that have not said HELLO yet. */
    final AtomicInteger pending = new AtomicInteger();
    final Limits limits;
    /** The open connections, closed with the server. */
    private final Set<Connection> live = ConcurrentHashMap.newKeySet();
    final RefusalLog refusals = new RefusalLog(LOG::warn, 10, System::nanoTime);
    /** {@code openssl} or {@code jdk}, null without TLS ({@link #tlsProvider()}). */
    private final @Nullable String tlsProvider;
    /** Prefill clients with a connection open, by client id; guarded by itself. */
    final Map<String, Client> clients = new HashMap<>();

    /** One prefill client: how many of its connections are open (guarded by {@link #clients}). */
    static final class Client {
        int connections;
    }

    /** Which client opened each request the receiver holds. */
    final RequestOwners owners;

    /** The engine that writes page bytes into the pool for clients that choose it, or null for PAGES frames only. */
    private final @Nullable PageLanding landing;

    private DecodeServer(DecodeReceiver receiver, String host, int port, Limits limits, @Nullable TransferTls tls, @Nullable PageLanding landing) {
        this.receiver = Objects.requireNonNull(receiver, "receiver");
        this.owners = new RequestOwners(receiver);
        this.landing = landing;
        this.limits = limits;
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
                    DecodeSession[] session = new DecodeSession[1];
                    ScheduledFuture<?>[] deadline = new ScheduledFuture<?>[1];
                    in.withConnection(c -> {
                        session[0] = new DecodeSession(this, peer(c), () -> CertificateNames.ofPeer(c.channel()));
                        if (c.isDisposed()) {
                            // refused past the connection cap, and counted there: not a second time here, and it takes no slot
                            // before HELLO, which a connection served on another event loop may be about to need
                            return;
                        }
                        int waiting = session[0].takePendingSlot(); // given back at HELLO or when the connection closes
                        if (waiting > limits.maxPending()) {
                            refusals.refused(session[0].peer, "connection", waiting - 1 + " connections have not said HELLO yet, at most "
                                    + limits.maxPending());
                            c.dispose();
                        }
                        // on the connection's own event loop: timers there take no lock (BlockHound-clean)
                        deadline[0] = c.channel().eventLoop().schedule(() -> {
                            if (!session[0].hello) {
                                refusals.refused(session[0].peer, "connection", "no HELLO within " + limits.handshake().toMillis() + " ms");
                                c.dispose();
                            }
                        }, limits.handshake().toMillis(), TimeUnit.MILLISECONDS);
                    });
                    DecodeSession s = session[0];
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
                                if (deadline[0] != null) { // none for a connection refused when it came
                                    deadline[0].cancel(false);
                                }
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
            owners.prune();
        }, every, every, TimeUnit.MILLISECONDS);
    }

    /** A connection that failed (idle too long, or broken), counted and logged; one this side closed was counted when it closed it. */
    private void refusedRead(DecodeSession s, Throwable e, Duration idle) {
        if (!(e instanceof AbortedException)) {
            refusals.refused(s.peer, "connection", e instanceof ReadTimeoutException ? "idle for " + idle.toMillis() + " ms" : e.toString());
        }
    }

    /**
     * Whether {@code host} names this machine's loopback (where no TLS is needed).
     *
     * @throws IllegalArgumentException if the host does not resolve
     */
    public static boolean loopback(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("unknown host " + host, e);
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
        return new DecodeServer(receiver, host, port, Objects.requireNonNull(limits, "limits"), tls, null);
    }

    /**
     * {@link #start(DecodeReceiver, String, int, Limits, TransferTls)} that also takes page bytes
     * written into {@code receiver}'s pool by {@code landing}'s engine, from clients whose HELLO
     * names it (the others send PAGES frames as ever).
     *
     * @param landing the engine's decode side, made over {@code receiver}'s store; its owner closes it after the server
     */
    public static DecodeServer start(DecodeReceiver receiver, String host, int port, Limits limits, @Nullable TransferTls tls, PageLanding landing) {
        return new DecodeServer(receiver, host, port, Objects.requireNonNull(limits, "limits"), tls, Objects.requireNonNull(landing, "landing"));
    }

    /** {@return the engine that writes page bytes into the pool for the clients that choose it, or null} */
    public @Nullable PageLanding landing() {
        return landing;
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

    /**
     * The latest refusals of frames and connections (at most 32), oldest first, each as its log
     * line says it ({@code decode server refused CODE from PEER: REASON}, cut at 512 characters),
     * held back from the log by its rate limit or not: why the last peers were turned away, without
     * reading the log.
     */
    public List<String> recentRefusals() {
        return refusals.recent();
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

}
