package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.kvflow.transfer.PageRun;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;

/** A closed transfer client never connects again: a late ABORT (a cancelled run's) has nothing to do, every other call fails. */
class ClosedClientTest {
    @Test
    void callsAfterCloseMakeNoConnectionAndAbortCompletesQuietly() {
        AtomicInteger connections = new AtomicInteger();
        DisposableServer decode = TcpServer.create().host("127.0.0.1").port(0)
                .doOnConnection(c -> {
                    connections.incrementAndGet();
                    c.addHandlerLast(new LengthFieldBasedFrameDecoder(ByteOrder.LITTLE_ENDIAN, 1 << 16, 0, 4, 0, 4, true));
                })
                .handle((in, out) -> out.sendByteArray(in.receive().map(f -> new Frames.Writer(Frames.HELLO_OK, 4).i32(1).bytes())))
                .bindNow();
        try {
            TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", decode.port(), 16, TcpFixtures.LAYOUT, 2, Duration.ofSeconds(2));
            client.connect().block();
            assertThat(connections.get()).as("one connection per rank").isEqualTo(2);
            client.close();
            client.close();
            client.abort("req-1").block(Duration.ofSeconds(5));
            String closed = "decode at 127.0.0.1:" + decode.port() + ": the transfer client is closed";
            assertThatThrownBy(() -> client.open("req-1", 1, 2).block()).isInstanceOf(DecodeUnreachableException.class).hasMessage(closed);
            assertThatThrownBy(() -> client.send("req-1", 1, new PageRun(0, 0, 1), null).block()).isInstanceOf(DecodeUnreachableException.class)
                    .hasMessage(closed);
            assertThat(connections.get()).as("no connection after close").isEqualTo(2);
        } finally {
            decode.disposeNow();
        }
    }
}
