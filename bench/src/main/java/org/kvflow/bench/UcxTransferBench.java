package org.kvflow.bench;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvLayout;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.RunShape;
import org.kvflow.transport.tcp.DecodeServerMain;
import org.kvflow.transport.tcp.DecodeServerProcess;
import org.kvflow.transport.tcp.PagePlacer;
import org.kvflow.transport.tcp.TcpTarget;
import org.kvflow.transport.tcp.TcpTransferBackend;
import org.kvflow.transport.ucx.LandingDescription;
import org.kvflow.transport.ucx.UcxDecodeServerMain;
import org.kvflow.transport.ucx.UcxTarget;
import org.openucx.jucx.UcxUtils;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpEndpoint;
import org.openucx.jucx.ucp.UcpEndpointParams;
import org.openucx.jucx.ucp.UcpMemory;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRemoteKey;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;
import reactor.core.publisher.Mono;

/**
 * A CP shared-KV request's pages sent to a decode process on this host, each CP rank its share on
 * its own connection at once: by the {@code ucx} engine (one-sided puts into the decode pool in
 * native memory, CRC32C on both sides), by the {@code tcp} engine (the same pages in frames) to a
 * second decode process, and, as the baseline, jucx's own puts of the same bytes into the same
 * decode pool (one worker per rank, from registered buffers, no store read and no checksum), all
 * in one run. DeepSeek V3.2's fp8 widths, page 64. Each timed send runs from the first rank's send
 * to the last rank's COMPLETE; {@code ready_after_last_page_ms} is the part after the last page
 * landed (the COMPLETEs: on ucx, the flush and the decode side's checks). The request is released
 * after. One JSON object per line.
 * Usage: {@code UcxTransferBench [pages 2048] [layers 61] [ranks 8] [runs 3]}.
 */
public final class UcxTransferBench {
    private UcxTransferBench() {}

    public static void main(String[] args) throws Exception {
        DebugMode.refuseBenchmark("UcxTransferBench");
        TransferRuns.Request request = TransferRuns.Request.of(args);
        List<PageStore> owners = request.owners((r, label) -> PageStore.onHeap(label, request.layout(), TransferRuns.PS, request.share()));
        long bytes = request.bytes();
        RunShape shape = request.shape();
        try (DecodeServerProcess ucx = TransferRuns.start(UcxDecodeServerMain.class, request);
             DecodeServerProcess tcp = TransferRuns.start(DecodeServerMain.class, request)) {
            int ucxPort = ucx.port();
            int tcpPort = tcp.port();
            try (TcpTransferBackend byUcx = (TcpTransferBackend) UcxTarget.of("127.0.0.1", ucxPort).timeout(Duration.ofMinutes(2)).open(shape);
                 TcpTransferBackend byTcp = (TcpTransferBackend) TcpTarget.of("127.0.0.1", tcpPort).timeout(Duration.ofMinutes(2)).open(shape);
                 RawPuts raw = RawPuts.connect(ucxPort, shape, request.ranks())) {
                for (int run = 0; run <= request.runs(); run++) { // run 0 warms every path up
                    TransferRuns.Sent ucxSent = TransferRuns.send(byUcx, "ucx-" + run, owners, request.share());
                    TransferRuns.Sent tcpSent = TransferRuns.send(byTcp, "tcp-" + run, owners, request.share());
                    double ucxMs = ucxSent.ms();
                    double tcpMs = tcpSent.ms();
                    double rawMs = raw.put(request.share(), request.layout());
                    if (run > 0) {
                        System.out.printf(Locale.ROOT, "{\"name\":\"transfer\",\"run\":%d,\"bytes\":%d,\"ucx_ms\":%.1f,\"tcp_ms\":%.1f,\"raw_put_ms\":%.1f,"
                                        + "\"ucx_gbps\":%.2f,\"tcp_gbps\":%.2f,\"raw_put_gbps\":%.2f,\"ucx_host_vs_raw_put\":%.3f,\"ucx_over_tcp_backend\":%.2f,"
                                        + "\"ucx_ready_after_last_page_ms\":%.2f,\"tcp_ready_after_last_page_ms\":%.2f}%n",
                                run, bytes, ucxMs, tcpMs, rawMs, bytes / (ucxMs * 1e6), bytes / (tcpMs * 1e6), bytes / (rawMs * 1e6), rawMs / ucxMs,
                                tcpMs / ucxMs, ucxSent.afterLastPageMs(), tcpSent.afterLastPageMs());
                    }
                }
            }
        }
    }

    /**
     * The baseline: the decode pool's description taken at a ucx handshake, then per rank a worker
     * and an endpoint of its own putting the same bytes from a registered buffer straight into the
     * pages the ranks' shares land in, each rank on its own thread, then a flush.
     */
    private static final class RawPuts implements AutoCloseable {
        private final UcpContext context = new UcpContext(new UcpParams().requestRmaFeature());
        private final List<UcpWorker> workers = new ArrayList<>();
        private final List<UcpEndpoint> endpoints = new ArrayList<>();
        private final List<UcpRemoteKey[]> keys = new ArrayList<>();
        private final List<ByteBuffer> sources = new ArrayList<>();
        private final List<UcpMemory> registered = new ArrayList<>();
        private final ExecutorService threads;
        private final LandingDescription landing;

        private RawPuts(LandingDescription landing, int ranks) {
            this.landing = landing;
            this.threads = Executors.newFixedThreadPool(ranks);
            for (int r = 0; r < ranks; r++) {
                UcpWorker w = context.newWorker(new UcpWorkerParams().requestThreadSafety());
                UcpEndpoint e = w.newEndpoint(new UcpEndpointParams().setUcpAddress(direct(landing.worker())));
                UcpRemoteKey[] k = new UcpRemoteKey[landing.buffers().size()];
                for (int i = 0; i < k.length; i++) {
                    k[i] = e.unpackRemoteKey(direct(landing.buffers().get(i).key()));
                }
                workers.add(w);
                endpoints.add(e);
                keys.add(k);
            }
        }

        /** Takes the landing's description from a ucx handshake (a placer that only listens), then opens the ranks' endpoints. */
        static RawPuts connect(int port, RunShape shape, int ranks) {
            byte[][] described = new byte[1][];
            PagePlacer listener = new PagePlacer() {
                @Override public String engine() { return "ucx"; }
                @Override public void connected(int lane, byte[] decodeSide) { described[0] = decodeSide.clone(); }
                @Override public Mono<int[]> place(int lane, PageStore source, long srcStart, long dstStart, int length) {
                    return Mono.error(new IllegalStateException("the baseline only listens"));
                }
                @Override public void close() { }
            };
            try (TcpTransferBackend hello = new TcpTransferBackend("127.0.0.1", port, shape.pageSize(), shape.layout(), 1, Duration.ofSeconds(30),
                    null, listener)) {
                hello.connect().block();
            }
            return new RawPuts(LandingDescription.parse(described[0]), ranks);
        }

        /** Each rank puts its share's bytes, layer by layer and component by component, into decode pages {@code 1 + r·share ..}; returns the wall ms. */
        double put(int share, KvLayout layout) throws Exception {
            int ranks = workers.size();
            int layers = layout.shape().layers();
            long largest = (long) share * layout.mlaPageBytes(TransferRuns.PS);
            while (sources.size() < ranks) {
                ByteBuffer b = ByteBuffer.allocateDirect((int) largest);
                registered.add(context.registerMemory(b));
                sources.add(b);
            }
            long t0 = System.nanoTime();
            List<Future<?>> done = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                int rank = r;
                done.add(threads.submit(() -> {
                    UcpWorker w = workers.get(rank);
                    UcpEndpoint e = endpoints.get(rank);
                    for (KvComponent c : KvComponent.values()) {
                        int pb = (int) (c == KvComponent.MLA ? layout.mlaPageBytes(TransferRuns.PS) : layout.indexPageBytes(TransferRuns.PS));
                        for (int l = 0; l < layers; l++) {
                            int at = c.ordinal() * layers + l;
                            long remote = landing.buffers().get(at).address() + (1L + (long) rank * share) * pb;
                            w.progressRequest(e.putNonBlocking(UcxUtils.getAddress(sources.get(rank)), (long) share * pb, remote, keys.get(rank)[at], null));
                        }
                    }
                    w.progressRequest(e.flushNonBlocking(null));
                    return null;
                }));
            }
            for (Future<?> f : done) {
                f.get();
            }
            return (System.nanoTime() - t0) / 1e6;
        }

        @Override
        public void close() {
            threads.shutdownNow();
            for (UcpRemoteKey[] k : keys) {
                Arrays.stream(k).forEach(UcpRemoteKey::close);
            }
            endpoints.forEach(UcpEndpoint::close);
            registered.forEach(UcpMemory::deregister);
            workers.forEach(UcpWorker::close);
            context.close();
        }

        private static ByteBuffer direct(byte[] bytes) {
            ByteBuffer b = ByteBuffer.allocateDirect(bytes.length);
            b.put(bytes).flip();
            return b;
        }
    }
}
