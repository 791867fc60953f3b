package org.kvflow.samples.cli;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.KvDtype;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.DecodeServerMain;
import org.kvflow.transport.tcp.TransferTls;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.pages.NativePageMemory;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.transport.cudaipc.CudaIpcEngine;
import org.kvflow.transport.cudaipc.CudaIpcLanding;
import org.kvflow.transport.tcp.PageLanding;
import org.kvflow.transport.ucx.UcxEngine;
import org.kvflow.transport.ucx.UcxLanding;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code kvflow decode-server}: a non-CP decode receiver on TCP, for PD transfer from a prefill pipeline. */
@Command(name = "decode-server", mixinStandardHelpOptions = true, showDefaultValues = true,
        footer = {"%nExample:", "  kvflow decode-server --port 7420 --kv-cache-dtype fp8_e4m3"},
        description = "Run a decode receiver (non-CP, full layout) for the tcp transfer backend; prints LISTENING <port> (or a JSON line) when"
                + " ready, a statistics line every --stats-interval-s and one when it stops.")
final class DecodeServerCommand implements Callable<Integer> {
    @Option(names = "--bind", defaultValue = "127.0.0.1", description = "address to listen on; beyond loopback mutual TLS is required")
    String bind;
    @Option(names = "--port", defaultValue = "0", description = "TCP port (0: any free port)") int port;
    @Option(names = "--pages", defaultValue = "4096", description = "decode pool pages (default ${DEFAULT-VALUE}; one layer's buffer must stay under 2 GiB)") int pages;
    @Option(names = "--page-size", defaultValue = "64") int pageSize;
    @Option(names = "--layers", defaultValue = "2", description = "layers of KV (0: track pages only)") int layers;
    @Option(names = "--latent", defaultValue = "512") int latent;
    @Option(names = "--rope", defaultValue = "64") int rope;
    @Option(names = "--index", defaultValue = "128") int index;
    @Option(names = "--kv-cache-dtype", defaultValue = "fp8_e4m3", description = "bf16 | fp8_e4m3") KvDtype dtype;
    @Option(names = "--tls-cert", description = "this server's certificate chain (PEM)") Path tlsCert;
    @Option(names = "--tls-key", description = "its private key (PEM, unencrypted PKCS#8)") Path tlsKey;
    @Option(names = "--tls-client-ca", description = "the CA that signs the prefill clients' certificates (PEM)") Path tlsClientCa;
    @Option(names = "--handshake-timeout-ms", defaultValue = "10000", description = "close a connection that sends no HELLO in time") long handshakeMs;
    @Option(names = "--idle-timeout-ms", defaultValue = "120000", description = "close a connection idle this long") long idleMs;
    @Option(names = "--max-connections", defaultValue = "64", description = "close new connections past this many") int maxConnections;
    @Option(names = "--max-pending-handshakes", description = "close new connections while this many have not said HELLO (default: half of"
            + " --max-connections)") Integer maxPending;
    @Option(names = "--max-connections-per-client", description = "refuse a client's HELLO past this many of its connections (default: no cap)")
    Integer connectionsPerClient;
    @Option(names = "--max-pages-per-client", description = "refuse a client's OPEN that would hold more decode pages than this (default: no cap)")
    Integer pagesPerClient;
    @Option(names = "--ready-ttl-s", defaultValue = "600", description = "free a ready request no decode consumer released within this many"
            + " seconds (counted as expired)") long readyTtlSeconds;
    @Option(names = "--json", description = "print the ready line and the statistics lines as JSON") boolean json;
    @Option(names = "--stats-interval-s", defaultValue = "60", description = "seconds between statistics lines (0: only when it stops)")
    long statsSeconds;
    @Option(names = "--engine", defaultValue = "tcp", description = "how page bytes arrive: tcp (in PAGES frames) | ucx (one-sided UCX puts into"
            + " a pool in native memory, for clients that choose it; loopback unless --trusted-fabric) | cuda-ipc (GPU-to-GPU copies from prefill"
            + " processes of this host into the pool, which needs --device cuda)") String engine;
    @Option(names = "--device", defaultValue = "java", description = "where the decode pool lies: java (the heap; native memory for --engine ucx)"
            + " | cuda[:n] (GPU memory; page checks run on the GPU)") String device;
    @Option(names = "--trusted-fabric", description = "let --engine ucx listen beyond loopback: UCX neither encrypts nor authenticates") boolean trustedFabric;
    @Option(names = "--metrics-port", paramLabel = "PORT", description = "serve GET /metrics (Prometheus text) on the --bind address at PORT"
            + " (0: any free port, named in the ready line)") Integer metricsPort;

    /** The server's bounds: a model layer count and widths a decode instance could hold, on this JVM's heap. */
    static final int MAX_LAYERS = 1024;
    static final int MAX_PAGE_SIZE = 1024;
    static final int MAX_WIDTH = 65_536;
    static final int MAX_STATS_SECONDS = 86_400;

    @Override
    public Integer call() {
        Flags.within("--port", port, 0, 65_535);
        Flags.within("--pages", pages, 1, Integer.MAX_VALUE);
        Flags.within("--page-size", pageSize, 1, MAX_PAGE_SIZE);
        Flags.within("--layers", layers, 0, MAX_LAYERS);
        Flags.within("--latent", latent, 1, MAX_WIDTH);
        Flags.within("--rope", rope, 0, MAX_WIDTH);
        Flags.within("--index", index, 1, MAX_WIDTH);
        Flags.within("--stats-interval-s", statsSeconds, 0, MAX_STATS_SECONDS);
        Flags.within("--ready-ttl-s", readyTtlSeconds, 1, MAX_STATS_SECONDS);
        if (metricsPort != null) {
            Flags.within("--metrics-port", metricsPort, 0, 65_535);
        }
        KvLayout layout = DecodeServerMain.layout(layers, latent, rope, index, dtype);
        String chosen = engine(layout);
        if (layout != null && device.equals("java") && !chosen.equals(UcxEngine.NAME)) {
            fitsTheHeap(layout);
        }
        int given = (tlsCert != null ? 1 : 0) + (tlsKey != null ? 1 : 0) + (tlsClientCa != null ? 1 : 0);
        if (given != 0 && given != 3) {
            throw new MalformedInputException("--tls-cert", "give --tls-cert, --tls-key and --tls-client-ca together");
        }
        TransferTls tls = given == 3 ? new TransferTls(tlsCert, tlsKey, tlsClientCa) : null;
        DecodeServer.Limits base = new DecodeServer.Limits(Duration.ofMillis(handshakeMs), Duration.ofMillis(idleMs), maxConnections,
                Duration.ofSeconds(readyTtlSeconds));
        DecodeServer.Limits limits = base.shares(share("--max-pending-handshakes", maxPending, base.maxPending()),
                share("--max-connections-per-client", connectionsPerClient, base.connectionsPerClient()),
                share("--max-pages-per-client", pagesPerClient, base.pagesPerClient()));
        java.io.PrintStream out = System.out;
        try (PageMemory pool = chosen.equals(UcxEngine.NAME) ? new NativePageMemory() : device.equals("java") ? null : PageMemories.open(device)) {
            DecodeReceiver receiver = pool == null ? new DecodeReceiver(pages, pageSize, layout) : new DecodeReceiver(pages, pageSize, layout, pool);
            PageLanding landing = switch (chosen) {
                case UcxEngine.NAME -> new UcxLanding(receiver.store());
                case CudaIpcEngine.NAME -> new CudaIpcLanding(receiver.store());
                default -> null;
            };
            try {
                serve(receiver, limits, tls, landing, out);
            } finally {
                if (landing instanceof AutoCloseable closeable) {
                    closeable.close();
                }
            }
        } catch (Exception e) {
            throw e instanceof RuntimeException r ? r : new IllegalStateException("closing the decode server's engine", e);
        }
        return KvflowCli.EXIT_OK;
    }

    /** A share flag's value, range-checked, or {@code otherwise} when it was not given. */
    private static int share(String flag, Integer given, int otherwise) {
        if (given == null) {
            return otherwise;
        }
        Flags.within(flag, given, 1, Integer.MAX_VALUE);
        return given;
    }

    /**
     * The engine page bytes come by, checked against the pool and the address: refuses an engine it
     * does not know, one that lands bytes without KV bytes, ucx beyond loopback untrusted or in GPU
     * memory, cuda-ipc without a GPU pool or beyond this host.
     */
    private String engine(KvLayout layout) {
        if (!device.equals("java") && !device.equals("cuda") && !device.startsWith("cuda:")) {
            throw new MalformedInputException("--device", "java or cuda[:n], not " + device);
        }
        if (engine.equals("tcp")) {
            return engine;
        }
        if (!engine.equals(UcxEngine.NAME) && !engine.equals(CudaIpcEngine.NAME)) {
            throw new MalformedInputException("--engine", "tcp, ucx or cuda-ipc, not " + engine);
        }
        if (layout == null) {
            throw new MalformedInputException("--engine", engine + " lands page bytes: it needs --layers 1 or more");
        }
        if (engine.equals(CudaIpcEngine.NAME)) {
            if (device.equals("java")) {
                throw new MalformedInputException("--engine", "cuda-ipc copies GPU to GPU: it needs --device cuda");
            }
            if (!DecodeServer.loopback(bind)) {
                throw new MalformedInputException("--engine", "cuda-ipc on " + bind + ": CUDA IPC reaches only processes of this host, so it listens on loopback");
            }
            new CudaIpcEngine().check();
            return engine;
        }
        if (!device.equals("java")) {
            throw new MalformedInputException("--engine", "ucx lands in host memory: it needs --device java");
        }
        if (!trustedFabric && !DecodeServer.loopback(bind)) {
            throw new MalformedInputException("--engine", "ucx on " + bind + ": UCX carries no TLS, so beyond loopback it needs --trusted-fabric");
        }
        new UcxEngine().check();
        return engine;
    }

    private void serve(DecodeReceiver receiver, DecodeServer.Limits limits, TransferTls tls, PageLanding landing, java.io.PrintStream out) {
        try (DecodeServer server = landing == null ? DecodeServer.start(receiver, bind, port, limits, tls)
                : DecodeServer.start(receiver, bind, port, limits, tls, landing);
             MetricsEndpoint metrics = metricsPort == null ? null : MetricsEndpoint.start(meters(server), bind, metricsPort)) {
            out.println(readyLine(server, bind, json, metrics == null ? null : metrics.port()));
            out.flush();
            java.util.concurrent.ScheduledExecutorService ticks = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
                Thread t = new Thread(r, "decode-server-stats");
                t.setDaemon(true);
                return t;
            });
            if (statsSeconds > 0) {
                ticks.scheduleAtFixedRate(() -> out.println(statsLine(server, json)), statsSeconds, statsSeconds, java.util.concurrent.TimeUnit.SECONDS);
            }
            Thread last = new Thread(() -> out.println(statsLine(server, json)), "decode-server-final-stats");
            Runtime.getRuntime().addShutdownHook(last);
            server.awaitClose();
            ticks.shutdownNow();
        }
    }

    /**
     * Refuses a pool the server could not allocate: a layer's buffer over 2 GiB, or all layers over
     * this JVM's heap, before anything is allocated.
     */
    private void fitsTheHeap(KvLayout layout) {
        long widest = Math.max(layout.mlaPageBytes(pageSize), layout.indexPageBytes(pageSize));
        if ((long) pages * widest > Integer.MAX_VALUE) {
            throw new MalformedInputException("--pages", pages + " pages of " + widest + " bytes make a layer buffer over 2 GiB");
        }
        long total = (long) layers * pages * (layout.mlaPageBytes(pageSize) + layout.indexPageBytes(pageSize));
        long heap = Runtime.getRuntime().maxMemory();
        if (total > heap) {
            throw new MalformedInputException("--layers", layers + " layers of " + pages + " pages need " + total + " bytes; this JVM's heap holds at most "
                    + heap + " (fewer --pages or --layers, or a larger -Xmx)");
        }
    }

    /** The server's statistics as Prometheus meters, read when scraped. */
    static PrometheusMeterRegistry meters(DecodeServer server) {
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        DecodeReceiver r = server.receiver();
        Gauge.builder("kvflow.decode.connections", server, DecodeServer::connections).description("open prefill connections").register(registry);
        Gauge.builder("kvflow.decode.sessions", r, DecodeReceiver::openSessions).description("requests open (received or being received)")
                .register(registry);
        Gauge.builder("kvflow.decode.sessions.incomplete", r, DecodeReceiver::incompleteSessions)
                .description("requests some rank has not completed yet").register(registry);
        Gauge.builder("kvflow.decode.sessions.ready", r, DecodeReceiver::readySessions)
                .description("requests ready and not yet released by decode").register(registry);
        FunctionCounter.builder("kvflow.decode.sessions.expired", r, DecodeReceiver::expiredSessions)
                .description("ready requests freed because nobody released them within --ready-ttl-s").register(registry);
        Gauge.builder("kvflow.decode.pages.inuse", r, DecodeReceiver::pagesInUse).description("decode pages held").register(registry);
        FunctionCounter.builder("kvflow.decode.pages.refused", server, DecodeServer::rejectedPages)
                .description("pages refused (bad checksum, page or frame)").register(registry);
        FunctionCounter.builder("kvflow.decode.refusals", server, DecodeServer::refusals).description("frames refused").register(registry);
        return registry;
    }

    /**
     * {@code LISTENING <port>} (then {@code METRICS <port>} when metrics are served, and
     * {@code TLS openssl|jdk} when it runs TLS, {@code ENGINE ucx} when pages may land by UCX), or with
     * {@code json} one object naming the address, port, pool, metrics port, TLS provider and engine.
     */
    static String readyLine(DecodeServer server, String bind, boolean json, Integer metricsPort) {
        String tls = server.tlsProvider();
        String engine = server.landing() == null ? null : server.landing().engine();
        if (!json) {
            return "LISTENING " + server.port() + (metricsPort == null ? "" : " METRICS " + metricsPort) + (tls == null ? "" : " TLS " + tls)
                    + (engine == null ? "" : " ENGINE " + engine);
        }
        DecodeReceiver r = server.receiver();
        com.fasterxml.jackson.databind.node.ObjectNode o = JsonNodeFactory.instance.objectNode().put("listening", server.port()).put("bind", bind)
                .put("pages", r.capacityPages()).put("pageSize", r.pageSize()).put("layers", r.layout() == null ? 0 : r.layout().shape().layers());
        if (metricsPort != null) {
            o.put("metrics", metricsPort);
        }
        if (tls != null) {
            o.put("tls", tls);
        }
        if (engine != null) {
            o.put("engine", engine);
        }
        return o.toString();
    }

    /** What the server holds and has refused so far, as text or one JSON object (which adds the latest refusal's line, once there is one). */
    static String statsLine(DecodeServer server, boolean json) {
        DecodeReceiver r = server.receiver();
        if (json) {
            com.fasterxml.jackson.databind.node.ObjectNode o = JsonNodeFactory.instance.objectNode().put("connections", server.connections())
                    .put("openSessions", r.openSessions()).put("incompleteSessions", r.incompleteSessions()).put("readySessions", r.readySessions())
                    .put("expiredSessions", r.expiredSessions()).put("pagesInUse", r.pagesInUse()).put("refusedPages", server.rejectedPages())
                    .put("refusals", server.refusals());
            java.util.List<String> recent = server.recentRefusals();
            if (!recent.isEmpty()) {
                o.put("lastRefusal", recent.getLast()); // why the latest peer was turned away, the log line's words
            }
            return o.toString();
        }
        return String.format(java.util.Locale.ROOT, "stats: %d connections, %d open sessions (%d incomplete, %d ready), %d expired unreleased,"
                        + " %d pages in use, %d pages refused, %d refusals", server.connections(), r.openSessions(), r.incompleteSessions(),
                r.readySessions(), r.expiredSessions(), r.pagesInUse(), server.rejectedPages(), server.refusals());
    }
}
