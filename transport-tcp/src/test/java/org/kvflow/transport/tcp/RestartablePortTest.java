package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** A restartable port lies below the ephemeral range, is free, and binds again after its server closes. */
class RestartablePortTest {
    @Test
    void aFreePortBelowTheEphemeralRangeThatBindsAgainAfterAClose() throws Exception {
        int first = RestartablePort.ephemeralFirst();
        assertThat(first).as("the ephemeral range's start").isBetween(1_024, 65_535);
        for (int i = 0; i < 20; i++) {
            int port = RestartablePort.free("127.0.0.1");
            assertThat(port).isGreaterThanOrEqualTo(RestartablePort.LOWEST).isLessThan(first);
            for (int bind = 0; bind < 2; bind++) {
                try (ServerSocket server = new ServerSocket()) {
                    server.setReuseAddress(true);
                    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
                    assertThat(server.getLocalPort()).isEqualTo(port);
                }
            }
        }
    }

    @Test
    void aPortInUseIsPassedOverForTheNextCandidate() throws Exception {
        int first = RestartablePort.ephemeralFirst();
        SplittableRandom draws = new SplittableRandom(5);
        int taken = draws.nextInt(RestartablePort.LOWEST, first);
        int next = draws.nextInt(RestartablePort.LOWEST, first);
        try (ServerSocket held = new ServerSocket()) {
            held.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), taken));
            assertThat(RestartablePort.free("127.0.0.1", new SplittableRandom(5), first)).isEqualTo(next);
        }
        assertThat(RestartablePort.free("127.0.0.1", new SplittableRandom(5), first)).as("free again once closed").isEqualTo(taken);
    }

    @Test
    void aHostThatDoesNotResolveNoRoomBelowTheRangeOrNoFreePortIsRefusedNamingIt() {
        assertThatThrownBy(() -> RestartablePort.free("[not-an-address]")).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("no port for a server on [not-an-address]: [not-an-address]: invalid IPv6 address literal");
        assertThatThrownBy(() -> RestartablePort.free("127.0.0.1", new SplittableRandom(1), RestartablePort.LOWEST + 1))
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("no port below the ephemeral range (it starts at 10001) to restart a server on");
        // an address of no interface here (TEST-NET-1): every bind fails
        assertThatThrownBy(() -> RestartablePort.free("192.0.2.1", new SplittableRandom(1), 32_768)).isInstanceOf(IllegalStateException.class)
                .hasMessage("no free port on 192.0.2.1 between 10000 and 32768 after 200 tries");
    }
}
