package org.kvflow.ranks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.MonoSink;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;

/**
 * The coordinator's control connection to one rank process over reactor-netty: each request is a
 * {@link ControlFrame} (a JSON object with an {@code id} its reply repeats, so calls may overlap,
 * and the bytes of a staged copy). A reply with {@code ok: false} fails its call with the rank's
 * reason, a reply whose bytes fail their checksum fails it naming the rank; a closed connection or
 * a call without a reply within the timeout loses the rank: that call and every pending one fail
 * with {@link RankLostException}.
 */
final class RankChannel implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    /**
     * The control connections' own event loops: a caller may wait for a reply on one of reactor-netty's
     * shared loops (the PD transfer reads staged pages there), which must not be the loop that reads the reply.
     */
    private static final reactor.netty.resources.LoopResources LOOPS = reactor.netty.resources.LoopResources.create("kvflow-rank-control", 2, true);

    private final int rank;
    /** What every request carries: the secret the rank was started with. */
    private final String token;
    private final Duration timeout;
    private final Connection connection;
    private final Map<Long, MonoSink<Reply>> pending = new ConcurrentHashMap<>();
    private final AtomicLong ids = new AtomicLong();
    private final Consumer<String> onLost;
    private volatile boolean closed;

    private RankChannel(int rank, String token, Duration timeout, Connection connection, Consumer<String> onLost) {
        this.rank = rank;
        this.token = token;
        this.timeout = timeout;
        this.connection = connection;
        this.onLost = onLost;
        connection.inbound().receive().map(ControlFrame::decode).subscribe(this::onFrame, e -> lost("its connection failed: " + e),
                () -> lost("it closed its connection"));
        connection.onDispose(() -> lost("its connection closed"));
    }

    /** Connects to rank {@code rank} listening on {@code port}; {@code onLost} hears why, once, if the connection goes. */
    static Mono<RankChannel> connect(int rank, int port, String token, Duration timeout, Consumer<String> onLost) {
        return TcpClient.create().runOn(LOOPS).host("127.0.0.1").port(port)
                .doOnConnected(c -> c.addHandlerLast(ControlFrame.splitter()))
                .connect().timeout(timeout)
                .map(c -> new RankChannel(rank, token, timeout, c, onLost))
                .onErrorMap(e -> !(e instanceof RankLostException), e -> new RankLostException(rank, "no control connection (" + e + ")"));
    }

    /**
     * A rank's reply.
     *
     * @param json  the reply object
     * @param bytes the bytes it carries (a staged read), or null
     */
    record Reply(JsonNode json, byte @Nullable [] bytes) {}

    /** Sends {@code request} (its {@code id} is set here) and completes with the reply's object. */
    Mono<JsonNode> call(ObjectNode request) {
        return call(request, null).map(Reply::json);
    }

    /** Sends {@code request} (its {@code id} is set here) with {@code bytes}, and completes with the reply. */
    Mono<Reply> call(ObjectNode request, byte @Nullable [] bytes) {
        return Mono.<Reply>create(sink -> {
            if (closed) {
                sink.error(new RankLostException(rank, "its connection is closed"));
                return;
            }
            long id = ids.incrementAndGet();
            pending.put(id, sink);
            sink.onDispose(() -> pending.remove(id));
            ControlFrame frame = ControlFrame.of(request.put("id", id).put("token", token).toString(), bytes);
            connection.outbound().send(Mono.fromSupplier(() -> frame.encode(connection.channel().alloc()))).then()
                    .subscribe(null, e -> sink.error(new RankLostException(rank, "a request could not be sent (" + e + ")")));
        }).timeout(timeout, Mono.defer(() -> {
            // a rank that does not answer in time is lost like one that died: its process is ended and never used again
            String why = "no reply to " + request.path("op").asText() + " within " + timeout;
            lost(why);
            return Mono.error(new RankLostException(rank, why));
        }))
                .flatMap(reply -> reply.json().path("ok").asBoolean()
                        ? Mono.just(reply)
                        : Mono.error(new IllegalArgumentException(reply.json().path("error").asText("the rank refused the request"))));
    }

    private void onFrame(ControlFrame frame) {
        JsonNode reply;
        try {
            reply = JSON.readTree(frame.json());
        } catch (JsonProcessingException e) {
            lost("it sent a frame that is not JSON: " + frame.json());
            return;
        }
        MonoSink<Reply> sink = pending.remove(reply.path("id").asLong(-1));
        if (sink == null) {
            return;
        }
        if (frame.damage() != null) {
            sink.error(new IllegalStateException("rank " + rank + ": the reply to " + reply.path("id") + " dropped: " + frame.damage()));
        } else {
            sink.success(new Reply(reply, frame.bytes()));
        }
    }

    /** Fails every pending call first (a caller may hold the lock {@code onLost} takes), then tells {@code onLost}, once. */
    private void lost(String why) {
        boolean first = !closed;
        closed = true;
        for (Long id : pending.keySet()) {
            MonoSink<Reply> sink = pending.remove(id);
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
