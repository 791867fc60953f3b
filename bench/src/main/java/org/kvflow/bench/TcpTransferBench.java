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
 * copy of the same bytes in the same frame sizes with a one-byte reply per frame, in the same run.
 * Usage: {@code TcpTransferBench [pages] [runs]}.
 */
public final class TcpTransferBench {
    private TcpTransferBench() {}

    public static void main(String[] args) throws Exception {
        DebugMode.refuseBenchmark("TcpTransferBench");
        int pages = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
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
        System.out.printf(Locale.ROOT, "{\"pages\":%d,\"payloadBytes\":%d,\"pagesPerFrame\":%d}%n", pages, payload, pagesPerFrame);
        DecodeReceiver receiver = new DecodeReceiver(pages + 1, 64, layout);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0);
             TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", server.port(), 64, layout, 1, Duration.ofSeconds(60));
             PlainSink sink = new PlainSink()) {
            client.connect().block();
            for (int run = 0; run < runs; run++) {
                String id = "run" + run;
                long start = System.nanoTime();
                long[] d = client.open(id, pages, 1).block();
                client.send(id, 0, new PageRun(0, d[0], pages), source).block();
                client.complete(id, 0).block();
                double kvflow = payload / ((System.nanoTime() - start) / 1e9) / 1e9;
                client.abort(id).block();
                double plain = sink.copy(mla, index, source.mlaPageBytes(), source.indexPageBytes(), pagesPerFrame) / 1e9;
                System.out.printf(Locale.ROOT, "{\"run\":%d,\"kvflowGBps\":%.2f,\"plainSocketGBps\":%.2f,\"ratio\":%.3f}%n",
                        run, kvflow, plain, kvflow / plain);
            }
        }
    }

    /** A plain blocking socket pair: frames of the same bytes, a one-byte reply after each. */
    private static final class PlainSink implements AutoCloseable {
        private final ServerSocket server = new ServerSocket(0);
        private final Thread reader;

        PlainSink() throws IOException {
            reader = new Thread(() -> {
                try (Socket s = server.accept(); DataInputStream in = new DataInputStream(s.getInputStream());
                     OutputStream out = s.getOutputStream()) {
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
            }, "plain-sink");
            reader.setDaemon(true);
            reader.start();
        }

        private Socket client;

        /** Bytes per second of copying every page (heap copies of the store's layers) in frames of {@code pagesPerFrame}. */
        double copy(byte[][] mla, byte[][] index, int mlaPageBytes, int indexPageBytes, int pagesPerFrame) throws IOException {
            if (client == null) {
                client = new Socket("127.0.0.1", server.getLocalPort());
            }
            DataOutputStream out = new DataOutputStream(client.getOutputStream());
            InputStream in = client.getInputStream();
            long bytes = 0;
            long start = System.nanoTime();
            int pages = mla[0].length / mlaPageBytes;
            for (int p = 0; p < pages; p += pagesPerFrame) {
                int n = Math.min(pagesPerFrame, pages - p);
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
            return bytes / ((System.nanoTime() - start) / 1e9);
        }

        @Override
        public void close() throws IOException {
            if (client != null) {
                client.close();
            }
            server.close();
        }
    }
}
