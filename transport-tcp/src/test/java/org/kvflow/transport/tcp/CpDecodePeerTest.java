package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Hooks;
import reactor.netty.DisposableServer;
import reactor.netty.tcp.TcpServer;

/** E-PD-3 at the handshake: a decode peer that advertises attn_cp_size > 1 is refused before any request is sent. */
class CpDecodePeerTest {
    @Test
    void aDecodePeerWithCpIsRefusedAtTheHandshakeOnEveryLaneWithNoErrorDropped() {
        // four lanes refused at once, ten times: each lane's refusal must reach the caller's chain, not Reactor's "dropped" log,
        // also while the peer goes away
        List<Throwable> dropped = new CopyOnWriteArrayList<>();
        Hooks.onErrorDropped(dropped::add);
        try {
            for (int attempt = 0; attempt < 10; attempt++) {
                DisposableServer cpDecode = TcpServer.create().host("127.0.0.1").port(0)
                        .doOnConnection(c -> c.addHandlerLast(new LengthFieldBasedFrameDecoder(ByteOrder.LITTLE_ENDIAN, 1 << 16, 0, 4, 0, 4, true)))
                        .handle((in, out) -> out.sendByteArray(in.receive().map(f -> new Frames.Writer(Frames.HELLO_OK, 4).i32(2).bytes())))
                        .bindNow();
                try (TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", cpDecode.port(), 16, TcpFixtures.LAYOUT, 4,
                        Duration.ofSeconds(2))) {
                    assertThatThrownBy(() -> client.connect().block()).isInstanceOfSatisfying(TransferHandshakeException.class, e -> {
                        assertThat(e.code()).isEqualTo("E-PD-3");
                        assertThat(e.getMessage()).isEqualTo("E-PD-3: decode side must be non-CP (it advertises attn_cp_size 2)");
                    });
                } finally {
                    cpDecode.disposeNow();
                }
            }
        } finally {
            Hooks.resetOnErrorDropped();
        }
        assertThat(dropped).as("errors Reactor dropped").isEmpty();
    }
}
