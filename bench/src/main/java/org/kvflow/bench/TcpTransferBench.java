package org.kvflow.bench;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.SplittableRandom;
import javax.net.ServerSocketFactory;
import javax.net.SocketFactory;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvDtype;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.TcpTransferBackend;
import org.kvflow.transport.tcp.TransferTls;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.PageRun;

/**
 * PD transfer over loopback: pages of the fp8 MLA + indexer layout (page 64, 2 layers) sent by
 * the {@code tcp} backend to a {@link DecodeServer} in this JVM, against a plain blocking socket
 * copy of the same bytes in the same frame sizes with a one-byte reply per frame (both ends with
 * {@code TCP_NODELAY}, as the transfer's connections have it), in the same run:
 * each run times the plain copy just before and just after the transfer and sets the transfer
 * against their mean time, so a machine that speeds up or slows down during a run moves both sides.
 * With {@code ranks} above 1, the pages are split into that many CP ranks' shares, each sent on the
 * rank's own connection at once, against as many plain sockets in parallel. With {@code tlsDir}
 * (PEM files {@code ca.crt}, {@code server.crt}, {@code server.key}, {@code client.crt},
 * {@code client.key}; a server certificate for 127.0.0.1), both paths run over mutual TLS: the
 * decode server and the client with those files, the plain sockets as JSSE sockets of the same
 * certificates, protocols and cipher suites. A first, untimed run of both paths compiles them (and
 * makes the handshakes) before the timed runs.
 * Usage: {@code TcpTransferBench [pages] [runs] [ranks] [tlsDir]}.
 */
public final class TcpTransferBench {
    private TcpTransferBench() {}

    public static void main(String[] args) throws Exception {
        DebugMode.refuseBenchmark("TcpTransferBench");
        int pages = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
        int runs = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int ranks = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        Path tlsDir = args.length > 3 ? Path.of(args[3]) : null;
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
        TransferTls serverTls = tlsDir == null ? null : new TransferTls(tlsDir.resolve("server.crt"), tlsDir.resolve("server.key"), tlsDir.resolve("ca.crt"));
        TransferTls clientTls = tlsDir == null ? null : new TransferTls(tlsDir.resolve("client.crt"), tlsDir.resolve("client.key"), tlsDir.resolve("ca.crt"));
        BaselineSockets sockets = tlsDir == null ? BaselineSockets.plain() : BaselineSockets.tls(serverTls, clientTls);
        System.out.printf(Locale.ROOT, "{\"pages\":%d,\"payloadBytes\":%d,\"pagesPerFrame\":%d,\"ranks\":%d,\"tls\":%b}%n", pages, payload,
                pagesPerFrame, ranks, tlsDir != null);
        DecodeReceiver receiver = new DecodeReceiver(pages + 1, 64, layout);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, serverTls);
             TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", server.port(), 64, layout, ranks, Duration.ofSeconds(60), clientTls);
             PlainSink sink = new PlainSink(sockets)) {
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
            if (tlsDir != null) {
                System.out.printf(Locale.ROOT, "{\"name\":\"tls\",\"plainSocketSession\":\"%s\"}%n", sockets.describe());
            }
        }
    }

    /** The first page of rank {@code r}'s share when {@code pages} are split over {@code ranks}. */
    private static int share(int pages, int ranks, int r) {
        return (int) ((long) pages * r / ranks);
    }

    /**
     * How the baseline's blocking sockets are made: plain, or JSSE sockets over mutual TLS with the
     * SSL contexts Netty builds from the transfer's own files (its JDK provider), so both paths
     * offer the same protocols and cipher suites.
     */
    private static final class BaselineSockets {
        private final ServerSocketFactory servers;
        private final SocketFactory clients;
        private final @Nullable SslContext serverContext;
        private final @Nullable SslContext clientContext;
        private volatile String negotiated = "off";

        private BaselineSockets(ServerSocketFactory servers, SocketFactory clients, @Nullable SslContext serverContext,
                             @Nullable SslContext clientContext) {
            this.servers = servers;
            this.clients = clients;
            this.serverContext = serverContext;
            this.clientContext = clientContext;
        }

        static BaselineSockets plain() {
            return new BaselineSockets(ServerSocketFactory.getDefault(), SocketFactory.getDefault(), null, null);
        }

        static BaselineSockets tls(TransferTls server, TransferTls client) throws SSLException {
            SslContext s = SslContextBuilder.forServer(server.certificate().toFile(), server.privateKey().toFile())
                    .trustManager(server.trustedCa().toFile()).clientAuth(ClientAuth.REQUIRE).sslProvider(SslProvider.JDK).build();
            SslContext c = SslContextBuilder.forClient().keyManager(client.certificate().toFile(), client.privateKey().toFile())
                    .trustManager(client.trustedCa().toFile()).sslProvider(SslProvider.JDK).build();
            return new BaselineSockets(((JdkSslContext) s).context().getServerSocketFactory(), ((JdkSslContext) c).context().getSocketFactory(), s, c);
        }

        ServerSocket listen() throws IOException {
            ServerSocket socket = servers.createServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress());
            if (socket instanceof SSLServerSocket secure) {
                SSLEngine like = serverContext.newEngine(ByteBufAllocator.DEFAULT); // what the decode server's connections get
                secure.setNeedClientAuth(true);
                secure.setEnabledProtocols(like.getEnabledProtocols());
                secure.setEnabledCipherSuites(like.getEnabledCipherSuites());
            }
            return socket;
        }

        Socket connect(int port) throws IOException {
            Socket socket = clients.createSocket(java.net.InetAddress.getLoopbackAddress(), port);
            socket.setTcpNoDelay(true); // as reactor-netty sets on the transfer's connections: no write waits for an ACK
            if (socket instanceof SSLSocket secure) {
                SSLEngine like = clientContext.newEngine(ByteBufAllocator.DEFAULT); // what the transfer client's connections get
                secure.setEnabledProtocols(like.getEnabledProtocols());
                secure.setEnabledCipherSuites(like.getEnabledCipherSuites());
                secure.startHandshake();
                negotiated = secure.getSession().getProtocol() + " " + secure.getSession().getCipherSuite();
            }
            return socket;
        }

        /** "off", or the protocol and cipher suite the baseline's connections agreed on. */
        String describe() {
            return negotiated;
        }
    }

    /** Blocking sockets: frames of the same bytes, a one-byte reply after each; a reader thread per connection. */
    private static final class PlainSink implements AutoCloseable {
        private final BaselineSockets sockets;
        private final ServerSocket server;
        private final java.util.List<Socket> clients = new java.util.ArrayList<>();

        PlainSink(BaselineSockets sockets) throws IOException {
            this.sockets = sockets;
            this.server = sockets.listen();
            Thread acceptor = new Thread(() -> {
                try {
                    while (true) {
                        Socket s = server.accept();
                        s.setTcpNoDelay(true); // the one-byte replies go out at once, as the decode server's do
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
                clients.add(sockets.connect(server.getLocalPort()));
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
