package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;

/**
 * A decode server's limits: each cap refused below 1 and taken at 1, each duration refused at zero
 * and taken at a nanosecond, the share of connections before HELLO, how often ready requests are
 * swept, and which hosts count as loopback (the only ones served without TLS).
 */
class DecodeServerLimitsTest {
    private static final Duration S = Duration.ofSeconds(1);

    @Test
    void everyCapIsRefusedBelowOneAndTakenAtOne() {
        assertThat(new DecodeServer.Limits(S, S, 1, S, 1, 1, 1).maxConnections()).isEqualTo(1);
        assertThatThrownBy(() -> new DecodeServer.Limits(S, S, 0, S, 1, 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("decode server limits handshake=PT1S idle=PT1S maxConnections=0 readyTtl=PT1S maxPending=1 connectionsPerClient=1"
                        + " pagesPerClient=1: durations must be positive and the caps at least 1");
        assertThatThrownBy(() -> new DecodeServer.Limits(S, S, 1, S, 0, 1, 1))
                .hasMessage(refusal("PT1S", "PT1S", 1, "PT1S", 0, 1, 1));
        assertThatThrownBy(() -> new DecodeServer.Limits(S, S, 1, S, 1, 0, 1))
                .hasMessage(refusal("PT1S", "PT1S", 1, "PT1S", 1, 0, 1));
        assertThatThrownBy(() -> new DecodeServer.Limits(S, S, 1, S, 1, 1, 0))
                .hasMessage(refusal("PT1S", "PT1S", 1, "PT1S", 1, 1, 0));
    }

    @Test
    void everyDurationIsRefusedAtZeroOrBelowAndTakenAtOneNanosecond() {
        Duration nano = Duration.ofNanos(1);
        DecodeServer.Limits shortest = new DecodeServer.Limits(nano, nano, 1, nano, 1, 1, 1);
        assertThat(shortest.handshake()).isEqualTo(nano);
        assertThatThrownBy(() -> new DecodeServer.Limits(Duration.ZERO, S, 1, S, 1, 1, 1)).hasMessage(refusal("PT0S", "PT1S", 1, "PT1S", 1, 1, 1));
        assertThatThrownBy(() -> new DecodeServer.Limits(S, Duration.ofMillis(-1), 1, S, 1, 1, 1)).hasMessage(refusal("PT1S", "PT-0.001S", 1, "PT1S", 1, 1, 1));
        assertThatThrownBy(() -> new DecodeServer.Limits(S, S, 1, Duration.ZERO, 1, 1, 1)).hasMessage(refusal("PT1S", "PT1S", 1, "PT0S", 1, 1, 1));
    }

    @Test
    void halfTheConnectionsMayWaitForHelloAndNoClientIsCappedUnlessShared() {
        DecodeServer.Limits limits = new DecodeServer.Limits(S, S, 64);
        assertThat(limits.maxPending()).isEqualTo(32);
        assertThat(limits.connectionsPerClient()).isEqualTo(Integer.MAX_VALUE);
        assertThat(limits.pagesPerClient()).isEqualTo(Integer.MAX_VALUE);
        assertThat(limits.readyTtl()).isEqualTo(DecodeServer.Limits.DEFAULT.readyTtl());
        assertThat(new DecodeServer.Limits(S, S, 5).maxPending()).isEqualTo(2);
        assertThat(new DecodeServer.Limits(S, S, 1).maxPending()).as("one connection may still say HELLO").isEqualTo(1);
        DecodeServer.Limits shared = limits.shares(3, 8, 1_000);
        assertThat(shared).isEqualTo(new DecodeServer.Limits(S, S, 64, limits.readyTtl(), 3, 8, 1_000));
    }

    @Test
    void readyRequestsAreSweptAQuarterOfTheirTtlApartWithinTenMillisecondsAndASecond() {
        assertThat(sweep(Duration.ofSeconds(2))).isEqualTo(Duration.ofMillis(500));
        assertThat(sweep(Duration.ofMillis(40))).isEqualTo(Duration.ofMillis(10));
        assertThat(sweep(Duration.ofMillis(8))).as("never more often than every 10 ms").isEqualTo(Duration.ofMillis(10));
        assertThat(sweep(Duration.ofMinutes(10))).as("never less often than every second").isEqualTo(Duration.ofSeconds(1));
    }

    @Test
    void onlyLoopbackAddressesCountAsLoopback() {
        assertThat(DecodeServer.loopback("127.0.0.1")).isTrue();
        assertThat(DecodeServer.loopback("127.5.6.7")).isTrue();
        assertThat(DecodeServer.loopback("::1")).isTrue();
        assertThat(DecodeServer.loopback("192.0.2.1")).isFalse();
        assertThat(DecodeServer.loopback("0.0.0.0")).as("every interface is not loopback").isFalse();
    }

    @Test
    void aServerBeyondLoopbackWithoutTlsIsRefusedBeforeItBinds() {
        assertThatThrownBy(() -> DecodeServer.start(new DecodeReceiver(8, 16, null), "0.0.0.0", 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("decode server on 0.0.0.0: an address beyond loopback needs mutual TLS (the server's certificate and key, and the CA"
                        + " that signs the prefill clients' certificates)");
    }

    /** The whole refusal of limits of these values, durations as {@link Duration#toString} writes them. */
    private static String refusal(String handshake, String idle, int maxConnections, String readyTtl, int maxPending, int perClient, int pages) {
        return "decode server limits handshake=" + handshake + " idle=" + idle + " maxConnections=" + maxConnections + " readyTtl=" + readyTtl
                + " maxPending=" + maxPending + " connectionsPerClient=" + perClient + " pagesPerClient=" + pages
                + ": durations must be positive and the caps at least 1";
    }

    /**
     * A connection holds a slot before HELLO only if it took one, and gives it back once: a
     * connection refused past the connection cap takes none (taking one, even briefly, refused a
     * connection already served on another event loop, seen under load), and one that said HELLO
     * gives its slot back then, not again at close.
     */
    @Test
    void aConnectionGivesBackOnlyTheSlotBeforeHelloItTook() throws Exception {
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(16, 16, TcpFixtures.LAYOUT), "127.0.0.1", 0)) {
            new DecodeSession(server, "refused past the cap", () -> null).closed();
            assertThat(server.pending).as("a connection that took no slot gives none back").hasValue(0);
            DecodeSession waiting = new DecodeSession(server, "before HELLO", () -> null);
            assertThat(waiting.takePendingSlot()).isEqualTo(1);
            waiting.closed();
            waiting.closed();
            assertThat(server.pending).as("given back once").hasValue(0);
            try (RawPeer peer = new RawPeer(server.port())) {
                assertThat(peer.hello(TcpFixtures.LAYOUT, 16, 1).type()).isEqualTo(Frames.HELLO_OK);
                assertThat(server.pending).as("given back at HELLO").hasValue(0);
            }
            for (int i = 0; i < 250 && server.connections() > 0; i++) {
                Thread.sleep(20);
            }
            assertThat(server.connections()).isZero();
            assertThat(server.pending).as("and not again when that connection closed").hasValue(0);
        }
    }

    private static Duration sweep(Duration ttl) {
        return new DecodeServer.Limits(S, S, 8, ttl).sweepEvery();
    }
}
