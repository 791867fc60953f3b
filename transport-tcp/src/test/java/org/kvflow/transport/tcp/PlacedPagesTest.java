package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.decode.TransferRejectedException;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.PageRun;
import reactor.core.publisher.Mono;

/**
 * Page bytes an engine writes into the decode pool count only once a PLACED frame names them and
 * each page's CRC32C, recomputed on the pool's bytes, matches; the handshake names the engine.
 */
class PlacedPagesTest {
    private static final KvLayout LAYOUT = TcpFixtures.LAYOUT;
    private static final Duration TIMEOUT = Duration.ofSeconds(5);

    private static PageStore filled(int pages, long seed) {
        return org.kvflow.pages.RandomPages.fill(PageStore.onHeap("prefill rank", LAYOUT, 16, pages), seed);
    }

    @Test
    void placedPagesCountOnceTheirChecksumsMatchAndNoPageByteTravelsInAFrame() {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        InProcessPlacement landing = new InProcessPlacement(receiver);
        InProcessPlacement.Placer placer = landing.placer(false);
        PageStore rank0 = filled(8, 1);
        PageStore rank1 = filled(8, 2);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null, landing);
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 2, TIMEOUT, null, placer)) {
            long[] d = prefill.open("r", 5, 2).block();
            prefill.send("r", 0, new PageRun(1, d[0], 3), rank0).block();
            assertThat(receiver.isReady("r")).isFalse();
            prefill.send("r", 1, new PageRun(4, d[3], 2), rank1).block();
            prefill.complete("r", 0).block();
            prefill.complete("r", 1).block();
            assertThat(receiver.isReady("r")).isTrue();
            for (int i = 0; i < 5; i++) {
                PageStore from = i < 3 ? rank0 : rank1;
                long page = i < 3 ? 1 + i : 4 + i - 3;
                for (KvComponent c : KvComponent.values()) {
                    assertThat(receiver.store().readPage(c, d[i])).as("position %d %s", i, c).isEqualTo(from.readPage(c, page));
                }
            }
            long pageBytes = (long) LAYOUT.shape().layers() * (LAYOUT.mlaPageBytes(16) + LAYOUT.indexPageBytes(16));
            assertThat(prefill.bytesSent()).as("frames carried checksums, not pages").isLessThan(5 * pageBytes);
            assertThat(placer.described).as("each lane was told the landing at its handshake")
                    .containsExactlyInAnyOrder("0: pool of 63 pages", "1: pool of 63 pages");
        }
        assertThat(placer.closed).as("the backend closes its engine").isTrue();
    }

    /** A run longer than one PLACED frame's pages goes in parts of 1,024, each placed at its own offset and reported in its own frame. */
    @Test
    void aLongRunIsPlacedAndReportedInPartsAndLandsWhole() {
        DecodeReceiver receiver = new DecodeReceiver(3600, 16, LAYOUT); // room for both requests side by side: each run is one range of decode pages
        InProcessPlacement landing = new InProcessPlacement(receiver);
        InProcessPlacement.Placer placer = landing.placer(false);
        PageStore rank = filled(2501, 3);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null, landing);
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT, null, placer)) {
            long[] d = prefill.open("long", 2500, 1).block();
            prefill.send("long", 0, new PageRun(1, d[0], 2500), rank).block();
            prefill.complete("long", 0).block();
            assertThat(receiver.isReady("long")).as("every part counted").isTrue();
            assertThat(placer.placed).containsExactly("0: src 1..1024 -> dst " + d[0], "0: src 1025..2048 -> dst " + (d[0] + 1024),
                    "0: src 2049..2500 -> dst " + (d[0] + 2048));
            for (int i : new int[] {0, 1023, 1024, 2047, 2048, 2499}) {
                for (KvComponent c : KvComponent.values()) {
                    assertThat(receiver.store().readPage(c, d[i])).as("position %d %s", i, c).isEqualTo(rank.readPage(c, 1 + i));
                }
            }
            long pageBytes = (long) LAYOUT.shape().layers() * (LAYOUT.mlaPageBytes(16) + LAYOUT.indexPageBytes(16));
            assertThat(prefill.bytesSent()).as("three PLACED frames of checksums, not 2,500 pages").isGreaterThan(4L * 2500).isLessThan(10 * pageBytes);
            prefill.release("long").block();
            long[] e = prefill.open("exact", 1024, 1).block();
            placer.placed.clear();
            prefill.send("exact", 0, new PageRun(0, e[0], 1024), rank).block();
            assertThat(placer.placed).as("a run of exactly one part's pages: one part, no empty second").containsExactly("0: src 0..1023 -> dst " + e[0]);
        }
    }

    @Test
    void aRunWhoseChecksumDiffersIsRefusedCountedAndLeftUnwritten() {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        InProcessPlacement landing = new InProcessPlacement(receiver);
        PageStore rank0 = filled(4, 3);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null, landing);
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT, null, landing.placer(true))) {
            long[] d = prefill.open("r", 2, 1).block();
            int landed = PageCrcs.of(rank0, 0);
            assertThatThrownBy(() -> prefill.send("r", 0, new PageRun(0, d[0], 2), rank0).block()).isInstanceOf(TransferRejectedException.class)
                    .hasMessage("transfer of request r rejected: E-PD-CRC: request r: page " + d[0] + " landed with crc32c " + Integer.toHexString(landed)
                            + ", placed as " + Integer.toHexString(landed ^ 1));
            assertThat(server.rejectedPages()).isEqualTo(2);
            prefill.complete("r", 0).block();
            assertThat(receiver.isReady("r")).as("the rank completed, yet nothing of its run counts as written").isFalse();
        }
    }

    /**
     * An engine that fails (UCX giving up on a put that never completed, its endpoint dropped) fails
     * the call as the decode side being unreachable, and the lane's next call shakes hands again, so
     * the engine is told the landing anew and its run lands.
     */
    @Test
    void anEngineThatFailsFailsTheCallUnreachableAndTheNextCallShakesHandsAgain() {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        InProcessPlacement landing = new InProcessPlacement(receiver);
        InProcessPlacement.Placer placer = landing.placer(false);
        AtomicBoolean failed = new AtomicBoolean();
        PagePlacer failingOnce = new ForwardingPlacer(placer) {
            @Override
            public Mono<int[]> place(int lane, PageStore source, long srcStart, long dstStart, int length) {
                return failed.compareAndSet(false, true) ? Mono.error(new IllegalStateException("connection 0: a put did not complete"))
                        : super.place(lane, source, srcStart, dstStart, length);
            }
        };
        PageStore rank0 = filled(4, 5);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null, landing);
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT, null, failingOnce)) {
            long[] d = prefill.open("a", 2, 1).block();
            assertThatThrownBy(() -> prefill.send("a", 0, new PageRun(0, d[0], 2), rank0).block()).isInstanceOf(DecodeUnreachableException.class)
                    .hasMessage("PAGES a rank 0 decode pages " + d[0] + ".." + (d[0] + 1) + ": connection 0: a put did not complete");
            assertThat(placer.described).as("one handshake so far").hasSize(1);
            long[] e = prefill.open("b", 2, 1).block();
            prefill.send("b", 0, new PageRun(0, e[0], 2), rank0).block();
            prefill.complete("b", 0).block();
            assertThat(receiver.isReady("b")).isTrue();
            assertThat(placer.described).as("the lane shook hands again after the engine failed").hasSize(2);
        }
    }

    @Test
    void aClientAskingForAnEngineTheServerLacksIsRefusedAtItsHandshake() {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null);
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT, null,
                     new InProcessPlacement(receiver).placer(false))) {
            assertThatThrownBy(() -> prefill.connect().block()).isInstanceOfSatisfying(TransferHandshakeException.class, e -> {
                assertThat(e.code()).isEqualTo("E-PD-ENGINE");
                assertThat(e.getMessage()).isEqualTo("E-PD-ENGINE: this decode server takes page bytes by tcp, not in-process");
            });
        }
    }

    @Test
    void aPlacedFrameOnAConnectionThatChoseTcpIsRefused() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null,
                new InProcessPlacement(receiver)); RawPeer peer = new RawPeer(server.port())) {
            assertThat(peer.hello(LAYOUT, 16, 1).type()).isEqualTo(Frames.HELLO_OK);
            long[] d = peer.open("x", 1, 1);
            Frames.Reader reply = peer.exchange(new Frames.Writer(Frames.PLACED, 64).str("x").i32(0).i64(d[0]).i32(1).i32(0).bytes());
            assertThat(reply.type()).isEqualTo(Frames.REJECT);
            reply.skipType();
            assertThat(reply.str()).isEqualTo("E-PD-0");
            assertThat(reply.str()).isEqualTo("PLACED for request x on a connection whose HELLO chose tcp: its page bytes come in PAGES frames");
        }
    }
}
