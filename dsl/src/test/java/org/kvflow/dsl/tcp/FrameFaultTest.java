package org.kvflow.dsl.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvLayout;
import org.kvflow.dsl.DslTest;
import org.kvflow.kernels.gather.KvPageStore;
import org.kvflow.operators.transfer.DecodeReceiver;
import reactor.core.publisher.Mono;
import reactor.netty.Connection;
import reactor.netty.tcp.TcpClient;

/** Frames the client never sends: a page whose bytes changed on the way, a frame before the handshake. */
class FrameFaultTest {
    private final BlockingQueue<byte[]> replies = new LinkedBlockingQueue<>();

    private Frames.Reader exchange(Connection c, byte[] frame) throws InterruptedException {
        c.outbound().sendByteArray(Mono.just(frame)).then().block(Duration.ofSeconds(2));
        return new Frames.Reader(replies.poll(2, TimeUnit.SECONDS));
    }

    @Test
    void aPageThatChangedOnTheWayIsRefusedByItsChecksum() throws Exception {
        KvLayout layout = DslTest.MODEL.layout();
        DecodeReceiver receiver = new DecodeReceiver(64, 16, layout);
        KvPageStore source = new KvPageStore(layout, 16, 1);
        source.mla(0)[5] = 9;
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0)) {
            Connection c = TcpClient.create().host("127.0.0.1").port(server.port())
                    .doOnConnected(conn -> conn.addHandlerLast(new LengthFieldBasedFrameDecoder(ByteOrder.LITTLE_ENDIAN,
                            Frames.MAX_FRAME + 16, 0, 4, 0, 4, true)))
                    .connectNow(Duration.ofSeconds(2));
            try {
                c.inbound().receive().asByteArray().subscribe(replies::offer);
                Frames.Reader early = exchange(c, new Frames.Writer(Frames.OPEN, 32).str("a").i32(1).i32(1).bytes());
                assertThat(early.type()).isEqualTo(Frames.REJECT);
                assertThat(early.skipType().str()).isEqualTo("E-PD-0");
                assertThat(early.str()).isEqualTo("handshake first");
                Frames.Reader hello = exchange(c, new Frames.Writer(Frames.HELLO, 32).i32(Frames.MAGIC).i32(16)
                        .u8(layout.dtype().ordinal()).i32(layout.shape().layers()).i32(layout.mlaRowBytes()).i32(layout.indexRowBytes())
                        .i32(4).bytes());
                assertThat(hello.type()).isEqualTo(Frames.HELLO_OK);
                Frames.Reader opened = exchange(c, new Frames.Writer(Frames.OPEN, 32).str("a").i32(1).i32(1).bytes());
                long page = opened.skipType().i32() == 1 ? opened.i64() : -1;
                // the checksum of the real page, sent with zeroed bytes
                Frames.Writer w = new Frames.Writer(Frames.PAGES, 1 << 16).str("a").i32(0).i64(page).i32(1).u8(1)
                        .i32(DecodeServer.pageCrc(source, 0));
                for (int l = 0; l < source.layers(); l++) {
                    w.raw(new byte[source.mlaPageBytes()], 0, source.mlaPageBytes());
                }
                for (int l = 0; l < source.layers(); l++) {
                    w.raw(new byte[source.indexPageBytes()], 0, source.indexPageBytes());
                }
                Frames.Reader refused = exchange(c, w.bytes());
                assertThat(refused.type()).isEqualTo(Frames.REJECT);
                assertThat(refused.skipType().str()).isEqualTo("E-PD-CRC");
                assertThat(refused.str()).startsWith("request a: page " + page + " arrived with crc32c ");
                assertThat(receiver.writtenPages("a")).isZero();
                assertThat(server.rejectedPages()).isEqualTo(1);
            } finally {
                c.disposeNow();
            }
        }
    }
}
