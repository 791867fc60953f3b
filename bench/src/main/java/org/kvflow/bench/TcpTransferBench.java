package org.kvflow.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvDtype;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.TcpTransferBackend;
import org.kvflow.kernels.pages.KvComponent;
import org.kvflow.kernels.pages.PageStore;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.transfer.PageRun;

/**
 * PD transfer over loopback: pages of the fp8 MLA + indexer layout (page 64, 2 layers) sent by
 * the {@code tcp} backend to a {@link DecodeServer} in this JVM, against a plain blocking socket
 * copy of the same bytes in the same frame sizes with a one-byte reply per frame, in the same run:
 * each run times the plain copy just before and just after the transfer and sets the transfer
 * against their mean time, so a machine that speeds up or slows down during a run moves both sides.
 * With {@code ranks} above 1, the pages are split into that many CP ranks' shares, each sent on the
 * rank's own connection at once, against as many plain sockets in parallel. A first, untimed run
 * of both paths compiles them before the timed runs.
 * Usage: {@code TcpTransferBench [pages] [runs] [ranks]}.
 */
public final class TcpTransferBench {
    private TcpTransferBench() {}

    public static void main(String[] args) throws Exception {
        DebugMode.refuseBenchmark("TcpTransferBench");
        int pages = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int ranks = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        var layout = NsaDims.REAL.layout(KvDtype.FP8_E4M3, 2);
        PageStore source = PageStore.onHeap("prefill rank", layout, 64, pages);
        SplittableRandom random = new SplittableRandom(3);
        byte[][] mla = new byte[2][];
        byte[][] index = new byte[2][];
        for (int l = 0; l < 2; l++) {
            mla[l] = new byte[pages * source.mlaPageBytes()];
            index[l] = new byte[pages * source.indexPageBytes()];
            random.nextBytes(mla[l]);
            random.nextBytes(index[l]);
            source.writeBytes(l, KvComponent.MLA, 0, mla[l]);
            source.writeBytes(l, KvComponent.INDEX, 0, index[l]);
        }
        long perPage = 2L * (source.mlaPageBytes() + source.indexPageBytes());
        long payload = perPage * pages;
        int pagesPerFrame = (int) Math.max(1, TcpTransferBackend.FRAME_BYTES / perPage); // the same frames as the tcp backend
        System.out.printf(Locale.ROOT, "{\"pages\":%d,\"payloadBytes\":%d,\"pagesPerFrame\":%d,\"ranks\":%d}%n", pages, payload, pagesPerFrame,
                ranks);
        DecodeReceiver receiver = new DecodeReceiver(pages + 1, 64, layout);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0);
             TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", server.port(), 64, layout, ranks, Duration.ofSeconds(60));
             PlainSink sink = new PlainSink()) {
            client.connect().block();
            for (int run = -1; run < runs; run++) { // run -1: an untimed warm-up of both paths, as JMH's warm-up iterations
                String id = "run" + run;
                double plainBefore = sink.copy(mla, index, source.mlaPageBytes(), source.indexPageBytes(), pagesPerFrame, ranks) / 1e9;
                long start = System.nanoTime();
                long[] d = client.open(id, pages, ranks).block();
                reactor.core.publisher.Flux.range(0, ranks).flatMap(r -> {
                    int from = share(pages, ranks, r);
                    int to = share(pages, ranks, r + 1);
                    return client.send(id, r, new PageRun(from, d[from], to - from), source).then(client.complete(id, r));
                }, ranks).blockLast();
                double kvflow = payload / ((System.nanoTime() - start) / 1e9) / 1e9;
                client.abort(id).block();
                double plainAfter = sink.copy(mla, index, source.mlaPageBytes(), source.indexPageBytes(), pagesPerFrame, ranks) / 1e9;
                double plain = 2 / (1 / plainBefore + 1 / plainAfter); // the two copies' mean time, as throughput
                if (run >= 0) {
                    System.out.printf(Locale.ROOT,
                            "{\"run\":%d,\"kvflowGBps\":%.2f,\"plainSocketGBps\":%.2f,\"ratio\":%.3f,\"plainBeforeGBps\":%.2f,\"plainAfterGBps\":%.2f}%n",
                            run, kvflow, plain, kvflow / plain, plainBefore, plainAfter);
                }
            }
        }
    }

    /** The first page of rank {@code r}'s share when {@code pages} are split over {@code ranks}. */
    private static int share(int pages, int ranks, int r) {
        return (int) ((long) pages * r / ranks);
    }

    /** Plain blocking sockets: frames of the same bytes, a one-byte reply after each; a reader thread per connection. */
    private static final class PlainSink implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0);
        private final java.util.List<Socket> clients = new java.util.ArrayList<>();

        PlainSink() throws IOException {
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = server.accept();
                        Thread reader = new Thread(() -> read(s), "plain-sink");
                        reader.setDaemon(true);
                        reader.start();
                    }
                } catch (IOException done) {
                    // the server socket closed: the benchmark is over
                }
            }, "plain-accept");
            acceptor.setDaemon(true);
            acceptor.start();
        }

        private static void read(Socket s) {
            try (s; DataInputStream in = new DataInputStream(s.getInputStream()); OutputStream out = s.getOutputStream()) {
                byte[] buffer = new byte[TcpTransferBackend.FRAME_BYTES + 64];
                while (true) {
                    int length = in.readInt();
                    in.readFully(buffer, 0, length);
                    out.write(1);
                    out.flush();
                }
            } catch (IOException done) {
                // the client closed: the benchmark is over
            }
        }

        /** Bytes per second of copying every page in frames of {@code pagesPerFrame}, the pages split over {@code streams} sockets sent at once. */
        double copy(byte[][] mla, byte[][] index, int mlaPageBytes, int indexPageBytes, int pagesPerFrame, int streams) throws Exception {
            while (clients.size() < streams) {
                clients.add(new Socket("127.0.0.1", server.getLocalPort()));
            }
            int pages = mla[0].length / mlaPageBytes;
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(streams);
            try {
                long start = System.nanoTime();
                java.util.List<java.util.concurrent.Future<Long>> sent = new java.util.ArrayList<>();
                for (int r = 0; r < streams; r++) {
                    Socket socket = clients.get(r);
                    int from = share(pages, streams, r);
                    int to = share(pages, streams, r + 1);
                    sent.add(pool.submit(() -> stream(socket, mla, index, mlaPageBytes, indexPageBytes, pagesPerFrame, from, to)));
                }
                long bytes = 0;
                for (java.util.concurrent.Future<Long> f : sent) {
                    bytes += f.get();
                }
                return bytes / ((System.nanoTime() - start) / 1e9);
            } finally {
                pool.shutdown();
            }
        }

        /** Pages {@code [from, to)} over one socket; returns the bytes sent. */
        private static long stream(Socket client, byte[][] mla, byte[][] index, int mlaPageBytes, int indexPageBytes, int pagesPerFrame,
                                   int from, int to) throws IOException {
            DataOutputStream out = new DataOutputStream(client.getOutputStream());
            InputStream in = client.getInputStream();
            long bytes = 0;
            for (int p = from; p < to; p += pagesPerFrame) {
                int n = Math.min(pagesPerFrame, to - p);
                int length = n * 2 * (mlaPageBytes + indexPageBytes);
                out.writeInt(length);
                for (int l = 0; l < 2; l++) {
                    out.write(mla[l], p * mlaPageBytes, n * mlaPageBytes);
                }
                for (int l = 0; l < 2; l++) {
                    out.write(index[l], p * indexPageBytes, n * indexPageBytes);
                }
                out.flush();
                if (in.read() != 1) {
                    throw new IOException("sink closed");
                }
                bytes += length;
            }
            return bytes;
        }

        @Override
        public void close() throws IOException {
            for (Socket client : clients) {
                client.close();
            }
            server.close();
        }
    }
}
