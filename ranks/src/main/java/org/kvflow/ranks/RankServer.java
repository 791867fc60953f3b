package org.kvflow.ranks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.security.MessageDigest;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;
import java.util.Base64;
import java.util.zip.CRC32C;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.StoreHandles;
import org.kvflow.pages.MissingCapabilityException;

/**
 * The rank side of the control protocol: one rank's pool and the answers to the coordinator's
 * requests, one {@link ControlFrame} each ({@code docs/formats.md}): {@code hello} (the pool's
 * shape and the handles that open it in place), {@code digest} (a page's CRC32C), the staged copies
 * where the coordinator cannot open the pool in place ({@code pages} and {@code read} send bytes,
 * {@code writePages} and {@code write} store them, raw in the frame behind their CRC32C) and
 * {@code exit}. Every request carries the coordinator's token; one without it is refused, so no
 * other process on the host reads, writes or ends the pool. A bad request, a read larger than one
 * frame, or bytes that fail their checksum are answered with
 * {@code ok: false} and the reason, and nothing of it is written; the rank keeps serving.
 * Thread-safe.
 */
final class RankServer {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final RankSpec spec;
    private final String memory;
    private final PageStore pool;
    private final Runnable exit;
    /** Control connections a rank serves at once: its coordinator needs one. */
    static final int MAX_CONNECTIONS = 4;
    private static final String SPLITTER = "kvflow-frames";
    private final byte[] token;

    /**
     * @param memory the rank's memory as resolved for it ({@code cuda:3} for {@code cuda:*}), told in {@code hello}
     * @param token  what every request must carry: the coordinator's secret, so no other process on the host is served
     */
    RankServer(RankSpec spec, String memory, PageStore pool, String token, Runnable exit) {
        this.spec = spec;
        this.memory = memory;
        this.pool = pool;
        this.token = token.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        this.exit = exit;
    }

    /** The reply to one request. */
    ControlFrame answer(ControlFrame frame) {
        return answer(frame, () -> { });
    }

    /**
     * Listens on a free loopback port: each connection's frames are answered in order, at most
     * {@link #MAX_CONNECTIONS} connections at once, and a connection's frames stay small until one of
     * them carries the token ({@link FrameSplitter}).
     *
     * @return the listening server
     */
    DisposableServer listen() {
        java.util.concurrent.atomic.AtomicInteger open = new java.util.concurrent.atomic.AtomicInteger();
        return TcpServer.create().host("127.0.0.1").port(0)
                .doOnConnection(c -> {
                    if (open.incrementAndGet() > MAX_CONNECTIONS) {
                        open.decrementAndGet();
                        c.dispose();
                        return;
                    }
                    c.onDispose(open::decrementAndGet);
                    c.addHandlerLast(SPLITTER, new FrameSplitter());
                })
                .handle((in, out) -> {
                    FrameSplitter[] splitter = new FrameSplitter[1];
                    in.withConnection(c -> splitter[0] = (FrameSplitter) c.channel().pipeline().get(SPLITTER));
                    return out.send(in.receive().map(frame -> answer(ControlFrame.decode(frame), () -> {
                        if (splitter[0] != null) {
                            splitter[0].open();
                        }
                    }).encode(out.alloc())));
                })
                .bindNow();
    }

    /** The reply to one request; {@code authentic} runs when it carries the token. */
    synchronized ControlFrame answer(ControlFrame frame, Runnable authentic) {
        ObjectNode reply = JSON.createObjectNode();
        byte[] out = null;
        try {
            JsonNode request = JSON.readTree(frame.json());
            reply.set("id", request.path("id"));
            if (!MessageDigest.isEqual(token, request.path("token").asText("").getBytes(java.nio.charset.StandardCharsets.UTF_8))) {
                throw new IllegalArgumentException("the request carries no valid token: this rank serves its coordinator alone");
            }
            authentic.run();
            if (frame.damage() != null) {
                throw new IllegalArgumentException(request.path("op").asText("a request") + " " + request.path("id") + " dropped: " + frame.damage());
            }
            String op = request.path("op").asText("");
            switch (op) {
                case "hello" -> hello(reply);
                case "digest" -> reply.put("crc", digest(request));
                case "pages" -> out = readPages(request);
                case "writePages" -> pool.writePages(layer(request), component(request), pages(request), bytes(frame));
                case "read" -> out = read(request);
                case "write" -> pool.writeBytes(layer(request), component(request), request.path("offset").asLong(-1), bytes(frame));
                case "exit" -> exit.run();
                default -> throw new IllegalArgumentException("unknown op '" + op + "'");
            }
            reply.put("ok", true);
        } catch (RuntimeException | com.fasterxml.jackson.core.JsonProcessingException e) {
            reply.put("ok", false).put("error", "rank " + spec.rank() + ": " + e.getMessage());
            out = null;
        }
        return ControlFrame.of(reply.toString(), out);
    }

    private void hello(ObjectNode reply) {
        reply.put("rank", spec.rank()).put("pid", ProcessHandle.current().pid()).put("memory", memory).put("device", pool.memory().deviceName())
                .put("pageSize", pool.pageSize()).put("pages", pool.pages());
        try {
            StoreHandles handles = pool.exportHandles();
            Base64.Encoder b64 = Base64.getEncoder();
            handles.mla().forEach(h -> reply.withArray("mla").add(b64.encodeToString(h)));
            handles.index().forEach(h -> reply.withArray("index").add(b64.encodeToString(h)));
            reply.put("shared", true);
        } catch (MissingCapabilityException e) {
            reply.put("shared", false).put("why", e.getMessage());
        }
    }

    private byte[] read(JsonNode request) {
        int length = request.path("length").asInt(-1);
        if (length < 0) {
            throw new IllegalArgumentException("length " + request.path("length") + " is not a byte count");
        }
        fitsAFrame(length);
        return pool.readBytes(layer(request), component(request), request.path("offset").asLong(-1), length);
    }

    /** The listed pages, refused before anything is allocated when they would not fit one frame. */
    private byte[] readPages(JsonNode request) {
        int layer = layer(request);
        KvComponent component = component(request);
        long[] pages = pages(request);
        fitsAFrame((long) pages.length * pool.pageBytes(component));
        return pool.readPages(layer, component, pages);
    }

    /** @throws IllegalArgumentException if {@code bytes} exceed what one reply frame carries */
    private static void fitsAFrame(long bytes) {
        if (bytes > StagedRankMemory.CHUNK) {
            throw new IllegalArgumentException(bytes + " bytes asked for; one frame carries at most " + StagedRankMemory.CHUNK);
        }
    }

    private int layer(JsonNode request) {
        int layer = request.path("layer").asInt(-1);
        if (layer < 0 || layer >= pool.layers()) {
            throw new IllegalArgumentException("layer " + layer + " outside [0, " + pool.layers() + ")");
        }
        return layer;
    }

    private static KvComponent component(JsonNode request) {
        return KvComponent.valueOf(request.path("component").asText("MLA"));
    }

    private static long[] pages(JsonNode request) {
        long[] pages = new long[request.path("pages").size()];
        for (int i = 0; i < pages.length; i++) {
            pages[i] = request.path("pages").get(i).asLong(-1);
        }
        return pages;
    }

    private static byte[] bytes(ControlFrame frame) {
        byte[] bytes = frame.bytes();
        if (bytes == null) {
            throw new IllegalArgumentException("the request carries no bytes");
        }
        return bytes;
    }

    private long digest(JsonNode request) {
        CRC32C crc = new CRC32C();
        crc.update(pool.readPage(layer(request), component(request), request.path("page").asLong(-1)));
        return crc.getValue();
    }
}
