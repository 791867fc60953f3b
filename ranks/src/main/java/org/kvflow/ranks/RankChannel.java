package org.kvflow.ranks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.LineBasedFrameDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;

/**
 * The coordinator's control connection to one rank process over reactor-netty: requests are JSON
 * objects, one per line, each with an {@code id} its reply repeats, so calls may overlap. A reply
 * with {@code ok: false} fails its call with the rank's reason; a closed connection or a call
 * without a reply within the timeout loses the rank: that call and every pending one fail with
 * {@link RankLostException}.
 */
final class RankChannel implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The longest control line either side reads, in bytes (a staged copy's base64 bytes included). */
    static final int MAX_LINE = 1 << 24;
    /**
     * The control connections' own event loops: a caller may wait for a reply on one of reactor-netty's
     * shared loops (the PD transfer reads staged pages there), which must not be the loop that reads the reply.
     */
    private static final reactor.netty.resources.LoopResources LOOPS = reactor.netty.resources.LoopResources.create("kvflow-rank-control", 2, true);

    private final int rank;
    private final Duration timeout;
    private final Connection connection;
    private final Map<Long, MonoSink<JsonNode>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Consumer<String> onLost;
    private volatile boolean closed;

    private RankChannel(int rank, Duration timeout, Connection connection, Consumer<String> onLost) {
        this.rank = rank;
        this.timeout = timeout;
        this.connection = connection;
        this.onLost = onLost;
        connection.inbound().receive().asString(StandardCharsets.UTF_8).subscribe(this::onLine, e -> lost("its connection failed: " + e),
                () -> lost("it closed its connection"));
        connection.onDispose(() -> lost("its connection closed"));
    }

    /** Connects to rank {@code rank} listening on {@code port}; {@code onLost} hears why, once, if the connection goes. */
    static Mono<RankChannel> connect(int rank, int port, Duration timeout, Consumer<String> onLost) {
        return TcpClient.create().runOn(LOOPS).host("127.0.0.1").port(port)
                .doOnConnected(c -> c.addHandlerLast(new LineBasedFrameDecoder(MAX_LINE)))
                .connect().timeout(timeout)
                .map(c -> new RankChannel(rank, timeout, c, onLost))
                .onErrorMap(e -> !(e instanceof RankLostException), e -> new RankLostException(rank, "no control connection (" + e + ")"));
    }

    /** Sends {@code request} (its {@code id} is set here) and completes with the reply. */
    Mono<JsonNode> call(ObjectNode request) {
        return Mono.<JsonNode>create(sink -> {
            if (closed) {
                sink.error(new RankLostException(rank, "its connection is closed"));
                return;
            }
            long id = ids.incrementAndGet();
            pending.put(id, sink);
            sink.onDispose(() -> pending.remove(id));
            String line = request.put("id", id).toString() + "\n";
            connection.outbound().sendString(Mono.just(line), StandardCharsets.UTF_8).then()
                    .subscribe(null, e -> sink.error(new RankLostException(rank, "a request could not be sent (" + e + ")")));
        }).timeout(timeout, Mono.defer(() -> {
            // a rank that does not answer in time is lost like one that died: its process is ended and never used again
            String why = "no reply to " + request.path("op").asText() + " within " + timeout;
            lost(why);
            return Mono.error(new RankLostException(rank, why));
        }))
                .flatMap(reply -> reply.path("ok").asBoolean()
                        ? Mono.just(reply)
                        : Mono.error(new IllegalArgumentException(reply.path("error").asText("the rank refused the request"))));
    }

    private void onLine(String line) {
        JsonNode reply;
        try {
            reply = JSON.readTree(line);
        } catch (JsonProcessingException e) {
            lost("it sent a line that is not JSON: " + line);
            return;
        }
        MonoSink<JsonNode> sink = pending.remove(reply.path("id").asLong(-1));
        if (sink != null) {
            sink.success(reply);
        }
    }

    /** Fails every pending call first (a caller may hold the lock {@code onLost} takes), then tells {@code onLost}, once. */
    private void lost(String why) {
        boolean first = !closed;
        closed = true;
        for (Long id : pending.keySet()) {
            MonoSink<JsonNode> sink = pending.remove(id);
            if (sink != null) {
                sink.error(new RankLostException(rank, why));
            }
        }
        if (first) {
            onLost.accept(why);
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true; // a close the coordinator asked for is not a loss
        connection.dispose();
    }
}
