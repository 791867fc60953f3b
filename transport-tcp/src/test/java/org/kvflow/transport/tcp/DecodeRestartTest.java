package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;

/**
 * A decode server that goes away and comes back: calls while it is down fail with the transfer's
 * typed error, at once during the back-off after a failed connection (counted, no connection
 * attempt), and the client reconnects to the server started again on the same port.
 */
class DecodeRestartTest {
    @Test
    void callsFailFastWhileTheDecodeSideIsDownAndReconnectWhenItIsBack() throws Exception {
        int port = RestartablePort.free("127.0.0.1"); // not one an outgoing connection can take while the server is down
        DecodeServer first = DecodeServer.start(new DecodeReceiver(64, 16, null), "127.0.0.1", port);
        try (TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", port, 16, null, 1, Duration.ofSeconds(2))) {
            assertThat(client.open("before", 1, 1).block()).hasSize(1);
            first.close();
            // the broken connection, then a connection refused: both the transfer's typed error
            for (int i = 0; i < 3 && client.consecutiveConnectFailures() == 0; i++) {
                assertThatThrownBy(() -> client.open("during", 1, 1).block()).isInstanceOf(DecodeUnreachableException.class);
            }
            assertThat(client.consecutiveConnectFailures()).as("a connection attempt failed").isPositive();
            // inside the back-off a call makes no attempt; on a slow machine a window may pass first, and the next one is twice as long
            String fast = null;
            for (int i = 0; i < 8 && fast == null; i++) {
                long refused = client.refusedInBackoff();
                try {
                    client.open("during", 1, 1).block();
                } catch (DecodeUnreachableException e) {
                    if (client.refusedInBackoff() == refused + 1) {
                        fast = e.getMessage();
                    }
                }
            }
            assertThat(fast).as("a call refused at once during a back-off").matches("decode at 127\\.0\\.0\\.1:" + port
                    + " is down \\(\\d+ connection attempts failed in a row\\); the next attempt is in \\d+ ms");
            DecodeReceiver second = new DecodeReceiver(64, 16, null);
            try (DecodeServer again = DecodeServer.start(second, "127.0.0.1", port)) {
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                long[] pages = null;
                while (pages == null && System.nanoTime() < deadline) {
                    try {
                        pages = client.open("after", 2, 1).block();
                    } catch (DecodeUnreachableException stillBackingOff) {
                        Thread.sleep(20);
                    }
                }
                assertThat(pages).as("reconnected to the restarted server").hasSize(2);
                assertThat(second.pageCount("after")).isEqualTo(2);
                assertThat(client.consecutiveConnectFailures()).isZero();
                assertThat(again.port()).isEqualTo(port);
            }
        }
    }
}
