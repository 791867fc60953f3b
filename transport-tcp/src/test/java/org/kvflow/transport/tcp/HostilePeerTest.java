package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvLayout;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.PageRun;

/**
 * The attacks of a hostile peer on the decode server, each answered with a typed refusal that
 * costs no more than the frame, while an honest client's transfer goes through untouched.
 */
class HostilePeerTest {
    private static final KvLayout LAYOUT = TcpFixtures.LAYOUT;
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private static void assertRefused(Frames.Reader reply, String code, String message) {
        assertThat(reply).as("a reply").isNotNull();
        assertThat(reply.type()).isEqualTo(Frames.REJECT);
        assertThat(reply.skipType().str()).isEqualTo(code);
        assertThat(reply.str()).isEqualTo(message);
    }

    /** A PAGES frame header with whatever lengths the attacker chose, and nothing behind it. */
    private static byte[] pagesHeader(int idLength, String id, int rank, long dst, int length) {
        return pagesHeader(idLength, id, rank, dst, length, 1);
    }

    private static byte[] pagesHeader(int idLength, String id, int rank, long dst, int length, int dataFlag) {
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 4 + id.length() + 4 + 8 + 4 + 1).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(b.capacity() - 4).put(Frames.PAGES).putInt(idLength).put(id.getBytes()).putInt(rank).putLong(dst).putInt(length).put((byte) dataFlag);
        return b.array();
    }

    @Test
    void lengthsAndRanksFromTheWireAreBoundedBeforeAnythingIsAllocated() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0); RawPeer peer = new RawPeer(server.port())) {
            peer.hello(LAYOUT, 16, 2);
            long[] d = peer.open("a", 3, 2);
            assertRefused(peer.exchange(pagesHeader(0x7FFFFFF0, "a", 0, d[0], 1)), "E-PD-0",
                    "malformed PAGES frame: a request id of 2147483632 bytes (at most 256, 18 left in the frame)");
            for (int flag : new int[] {0, 2}) { // without bytes, positions would read as written
                assertRefused(peer.exchange(pagesHeader(1, "a", 0, d[0], 1, flag)), "E-PD-0",
                        "malformed PAGES frame: data flag " + flag + "; this decode side takes 1 (with bytes)");
            }
            assertThat(receiver.writtenPages("a")).as("nothing marked written").isZero();
            assertRefused(peer.exchange(pagesHeader(1, "a", 0, d[0], 0x7FFFFFFF)), "E-PD-0",
                    "malformed PAGES frame: a run of 2147483647 pages (request a may name at most 3, 0 checksums fit the frame)");
            assertRefused(peer.exchange(new Frames.Writer(Frames.COMPLETE, 16).str("a").i32(0x7FFFFFFF).bytes()), "E-PD-PAGE",
                    "completion from rank 2147483647, outside [0, 2)");
            assertRefused(peer.exchange(new Frames.Writer(Frames.OPEN, 16).str("b").i32(0x7FFFFFFF).i32(1).bytes()), "E-PD-PAGE",
                    "2147483647 pages outside [1, 63]");
            assertRefused(peer.exchange(new Frames.Writer(Frames.OPEN, 16).str("b").i32(1).i32(9).bytes()), "E-PD-PAGE",
                    "9 senders outside [1, 2] (the prefill's CP size)");
            assertRefused(peer.exchange(new Frames.Writer(Frames.OPEN, 16).str("a").i32(1).i32(1).bytes()), "E-PD-PAGE",
                    "a request of that id is open already (ids are unique among open requests, across clients)");
            assertRefused(peer.exchange(new Frames.Writer(Frames.OPEN, 16).str("c").i32(61).i32(1).bytes()), "E-PD-POOL",
                    "61 decode pages needed; the pool has 60 free");
            assertRefused(peer.exchange(new Frames.Writer(Frames.OPEN, 16).i32(10_000).bytes()), "E-PD-0",
                    "malformed frame: a request id of 10000 bytes (at most 256)");
            ByteBuffer cut = ByteBuffer.allocate(4 + 1 + 4 + 1 + 2).order(ByteOrder.LITTLE_ENDIAN); // a PAGES frame that stops inside its rank
            cut.putInt(cut.capacity() - 4).put(Frames.PAGES).putInt(1).put((byte) 'a').putShort((short) 0);
            assertRefused(peer.exchange(cut.array()), "E-PD-0", "malformed frame: fields run past its end");
            byte[] empty = {0, 0, 0, 0};
            assertRefused(peer.exchange(empty), "E-PD-0", "empty frame");
            assertRefused(peer.exchange(new Frames.Writer(Frames.COMPLETE, 4).i32(3).bytes()), "E-PD-0",
                    "malformed frame: string of 3 bytes in a frame with 0 left");
            assertThat(receiver.openSessions()).as("the refused OPENs hold nothing").isEqualTo(1);
            assertThat(server.refusals()).as("every refusal counted, the pool-full one included").isEqualTo(13);
            // the connection still serves
            assertThat(peer.exchange(new Frames.Writer(Frames.STATS, 0).bytes()).type()).isEqualTo(Frames.STATISTICS);
        }
    }

    @Test
    void aRequestBelongsToTheClientThatOpenedIt() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        PageStore source = PageStore.onHeap("prefill rank", LAYOUT, 16, 4);
        source.writeBytes(0, KvComponent.MLA, 7, new byte[] {42});
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0);
             TcpTransferBackend honest = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT);
             RawPeer stranger = new RawPeer(server.port())) {
            long[] d = honest.open("victim", 2, 1).block();
            stranger.hello(LAYOUT, 16, 1);
            Frames.Writer inject = new Frames.Writer(Frames.PAGES, 1 << 16).str("victim").i32(0).i64(d[0]).i32(1).u8(1).i32(0);
            assertRefused(stranger.exchange(inject.bytes()), "E-PD-OWNER", "request victim was opened by another client");
            assertRefused(stranger.exchange(new Frames.Writer(Frames.COMPLETE, 16).str("victim").i32(0).bytes()), "E-PD-OWNER",
                    "request victim was opened by another client");
            assertRefused(stranger.exchange(new Frames.Writer(Frames.ABORT, 16).str("victim").bytes()), "E-PD-OWNER",
                    "request victim was opened by another client");
            assertThat(receiver.pageCount("victim")).isEqualTo(2);
            honest.send("victim", 0, new PageRun(0, d[0], 2), source).block();
            honest.complete("victim", 0).block();
            assertThat(receiver.isReady("victim")).isTrue();
            assertThat(receiver.store().readBytes(0, KvComponent.MLA, (int) d[0] * receiver.store().mlaPageBytes() + 7, 1)[0]).isEqualTo((byte) 42);
            // digests are read-only and open to any connection; a ready request is decode's to release
            Frames.Reader digest = stranger.exchange(new Frames.Writer(Frames.DIGEST, 32).str("victim").i64(32).bytes());
            assertThat(digest.type()).isEqualTo(Frames.DIGESTED);
            assertThat(stranger.exchange(new Frames.Writer(Frames.ABORT, 16).str("victim").bytes()).type()).isEqualTo(Frames.ACK);
            assertThat(receiver.pagesInUse()).isZero();
        }
    }

    @Test
    void eachRankSendsOnItsOwnConnectionAndTheRequestOutlivesAllButItsClientsLastConnection() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        PageStore source = PageStore.onHeap("prefill rank", LAYOUT, 16, 4);
        for (int p = 0; p < 4; p++) {
            source.writeBytes(0, KvComponent.MLA, (long) p * source.mlaPageBytes(), new byte[] {(byte) (10 + p)});
        }
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0)) {
            try (TcpTransferBackend cp4 = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 4, TIMEOUT)) {
                cp4.connect().block();
                assertThat(server.connections()).as("one connection per rank").isEqualTo(4);
                long[] d = cp4.open("spread", 4, 4).block();
                for (int rank = 0; rank < 4; rank++) {
                    cp4.send("spread", rank, new PageRun(rank, d[rank], 1), source).block();
                    cp4.complete("spread", rank).block();
                }
                assertThat(receiver.isReady("spread")).isTrue();
                for (int p = 0; p < 4; p++) {
                    assertThat(receiver.store().readBytes(0, KvComponent.MLA, d[p] * receiver.store().mlaPageBytes(), 1)[0]).isEqualTo((byte) (10 + p));
                }
                assertThat(cp4.abort("spread").block()).isNull();
            }
            byte[] client = new byte[Frames.CLIENT_ID_BYTES];
            client[0] = 7;
            try (RawPeer rank0 = new RawPeer(server.port()); RawPeer rank1 = new RawPeer(server.port());
                 RawPeer stranger = new RawPeer(server.port())) {
                rank0.hello(LAYOUT, 16, 2, client);
                rank1.hello(LAYOUT, 16, 2, client);
                stranger.hello(LAYOUT, 16, 2);
                assertRefused(rank1.exchange(new Frames.Writer(Frames.HELLO, 48).i32(Frames.MAGIC).i32(16).u8(LAYOUT.dtype().ordinal())
                        .i32(LAYOUT.shape().layers()).i32(LAYOUT.mlaRowBytes()).i32(LAYOUT.indexRowBytes()).i32(2)
                        .raw(client, 0, client.length).bytes()), "E-PD-0", "HELLO twice on one connection");
                rank0.open("shared", 2, 2);
                assertThat(rank1.exchange(new Frames.Writer(Frames.COMPLETE, 16).str("shared").i32(1).bytes()).type())
                        .as("the same client's other connection").isEqualTo(Frames.ACK);
                assertRefused(stranger.exchange(new Frames.Writer(Frames.COMPLETE, 16).str("shared").i32(0).bytes()), "E-PD-OWNER",
                        "request shared was opened by another client");
                rank0.close();
                TimeUnit.MILLISECONDS.sleep(200);
                assertThat(receiver.pageCount("shared")).as("the client still has a connection").isEqualTo(2);
                rank1.close();
                waitUntil(() -> receiver.pageCount("shared") == 0);
                assertThat(receiver.pagesInUse()).as("released with the client's last connection").isZero();
            }
        }
    }

    @Test
    void aBackendWithoutRanksIsRefused() {
        assertThatThrownBy(() -> new TcpTransferBackend("127.0.0.1", 1, 16, LAYOUT, 0, TIMEOUT)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("prefill CP size must be >= 1, was 0");
    }

    @Test
    void requestsAConnectionLeavesUnfinishedAreReleased() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(8192, 16, null);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0)) {
            try (RawPeer hoarder = new RawPeer(server.port())) {
                hoarder.hello(LAYOUT, 16, 1);
                hoarder.exchange(new Frames.Writer(Frames.HELLO, 0).bytes());
            }
            try (RawPeer hoarder = new RawPeer(server.port())) {
                assertThat(hoarder.exchange(new Frames.Writer(Frames.HELLO, 32).i32(Frames.MAGIC).i32(16).u8(0).i32(0).i32(0).i32(0).i32(1)
                        .raw(new byte[Frames.CLIENT_ID_BYTES], 0, Frames.CLIENT_ID_BYTES).bytes()).type()).isEqualTo(Frames.HELLO_OK);
                assertThat(hoarder.open("hoard", 8191, 1)).hasSize(8191);
                assertThat(receiver.pagesInUse()).isEqualTo(8191);
            }
            waitUntil(() -> receiver.pagesInUse() == 0);
            try (TcpTransferBackend honest = new TcpTransferBackend("127.0.0.1", server.port(), 16, null, 1, TIMEOUT)) {
                assertThat(honest.open("next", 8191, 1).block()).hasSize(8191);
            }
        }
    }

    @Test
    void slowSilentAndSurplusConnectionsAreClosedEachCountedWithItsReason() throws Exception {
        DecodeServer.Limits limits = new DecodeServer.Limits(Duration.ofMillis(300), Duration.ofMillis(600), 2).shares(2, 2, Integer.MAX_VALUE);
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(64, 16, null), "127.0.0.1", 0, limits)) {
            List<String> expected = new ArrayList<>();
            try (RawPeer mute = new RawPeer(server.port())) {
                mute.send(new byte[] {40, 0}); // half a length prefix, then nothing
                assertThat(mute.closedWithin(Duration.ofSeconds(3))).as("closed without a HELLO").isTrue();
                expected.add("decode server refused connection from " + mute.local() + ": no HELLO within 300 ms");
            }
            waitUntil(() -> server.refusals() == 1);
            assertThat(server.recentRefusals()).containsExactlyElementsOf(expected);
            try (RawPeer idle = new RawPeer(server.port())) {
                assertThat(idle.exchange(new Frames.Writer(Frames.HELLO, 32).i32(Frames.MAGIC).i32(16).u8(0).i32(0).i32(0).i32(0).i32(1)
                        .raw(new byte[Frames.CLIENT_ID_BYTES], 0, Frames.CLIENT_ID_BYTES).bytes()).type()).isEqualTo(Frames.HELLO_OK);
                assertThat(idle.closedWithin(Duration.ofSeconds(3))).as("closed when idle").isTrue();
                expected.add("decode server refused connection from " + idle.local() + ": idle for 600 ms");
            }
            waitUntil(() -> server.connections() == 0 && server.refusals() == 2);
            assertThat(server.recentRefusals()).containsExactlyElementsOf(expected);
            List<RawPeer> held = new ArrayList<>();
            try {
                held.add(new RawPeer(server.port()));
                held.add(new RawPeer(server.port()));
                waitUntil(() -> server.connections() == 2);
                try (RawPeer surplus = new RawPeer(server.port())) {
                    assertThat(surplus.closedWithin(Duration.ofSeconds(3))).as("refused past the cap").isTrue();
                    expected.add("decode server refused connection from " + surplus.local() + ": 2 connections open, at most 2");
                }
                // the two held peers never say HELLO either: each is closed at its own deadline, in either order
                waitUntil(() -> server.connections() == 0 && server.refusals() == 5);
                List<String> recent = server.recentRefusals();
                assertThat(recent.subList(0, 3)).containsExactlyElementsOf(expected);
                assertThat(recent.subList(3, 5)).containsExactlyInAnyOrder(
                        "decode server refused connection from " + held.get(0).local() + ": no HELLO within 300 ms",
                        "decode server refused connection from " + held.get(1).local() + ": no HELLO within 300 ms");
            } finally {
                held.forEach(RawPeer::close);
            }
        }
    }

    @Test
    void silentConnectionsTakeAtMostTheirShareOfTheSlots() throws Exception {
        DecodeServer.Limits limits = new DecodeServer.Limits(Duration.ofSeconds(10), Duration.ofMinutes(2), 8).shares(2, 8, Integer.MAX_VALUE);
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(64, 16, LAYOUT), "127.0.0.1", 0, limits);
             RawPeer first = new RawPeer(server.port()); RawPeer second = new RawPeer(server.port())) {
            waitUntil(() -> server.connections() == 2);
            try (RawPeer third = new RawPeer(server.port())) {
                assertThat(third.closedWithin(Duration.ofSeconds(3))).as("a third connection without HELLO, past the share of 2").isTrue();
                assertThat(server.recentRefusals()).containsExactly(
                        "decode server refused connection from " + third.local() + ": 2 connections have not said HELLO yet, at most 2");
            }
            assertThat(first.hello(LAYOUT, 16, 1).type()).isEqualTo(Frames.HELLO_OK); // one said HELLO: a slot before HELLO is free again
            try (RawPeer honest = new RawPeer(server.port())) {
                assertThat(honest.hello(LAYOUT, 16, 1).type()).isEqualTo(Frames.HELLO_OK);
            }
        }
    }

    /**
     * A request that left the receiver without a frame (its decode consumer released it in process,
     * or it expired) stops being its opener's: the same id opened by another client is refused to the
     * first, and a long-lived client's claims do not pile up.
     */
    @Test
    void aRequestReleasedInProcessIsNoLongerItsOpenersAndItsClaimGoes() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        DecodeServer.Limits limits = new DecodeServer.Limits(Duration.ofSeconds(10), Duration.ofMinutes(2), 8, Duration.ofMillis(40));
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, limits); RawPeer a = new RawPeer(server.port());
             RawPeer b = new RawPeer(server.port())) {
            a.hello(LAYOUT, 16, 1);
            b.hello(LAYOUT, 16, 1);
            a.open("x", 2, 1);
            receiver.release("x"); // its decode consumer took it in this process: the id is free again
            b.open("x", 2, 1);
            assertRefused(a.exchange(new Frames.Writer(Frames.COMPLETE, 16).str("x").i32(0).bytes()), "E-PD-OWNER",
                    "request x was opened by another client");
            assertRefused(a.exchange(new Frames.Writer(Frames.ABORT, 16).str("x").bytes()), "E-PD-OWNER", "request x was opened by another client");
            assertThat(receiver.pageCount("x")).as("b's request untouched").isEqualTo(2);
            for (int i = 0; i < 200; i++) {
                a.open("r" + i, 1, 1);
                receiver.release("r" + i);
            }
            waitUntil(() -> server.owners.size() == 1); // b's x is left; a's 200 went at the sweep
            assertThat(b.exchange(new Frames.Writer(Frames.ABORT, 16).str("x").bytes()).type()).as("b still owns x").isEqualTo(Frames.ACK);
            assertThat(server.owners.size()).isZero();
            assertThat(receiver.openSessions()).isZero();
        }
    }

    /** A PAGES frame of a run of {@code length} pages carrying {@code checksums} checksums (zeros) and no page bytes. */
    private static byte[] pagesWithChecksums(String id, long dst, int length, int checksums) {
        byte[] idBytes = id.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 4 + idBytes.length + 4 + 8 + 4 + 1 + 4 * checksums).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(b.capacity() - 4).put(Frames.PAGES).putInt(idBytes.length).put(idBytes).putInt(0).putLong(dst).putInt(length).put((byte) 1);
        return b.array();
    }

    /** Each bound from the wire at its edge: the value on it is taken, one past it refused by its message. */
    @Test
    void boundsTakeTheirEdgeAndRefuseOnePast() throws Exception {
        DecodeServer.Limits limits = DecodeServer.Limits.DEFAULT.shares(32, 2, 10);
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, limits); RawPeer peer = new RawPeer(server.port());
             RawPeer tooWide = new RawPeer(server.port())) {
            assertRefused(tooWide.hello(LAYOUT, 16, DecodeServer.MAX_PREFILL_CP + 1), "E-PD-0", "prefill CP size 1025 outside [1, 1024]");
            assertThat(peer.hello(LAYOUT, 16, DecodeServer.MAX_PREFILL_CP).type()).isEqualTo(Frames.HELLO_OK);
            long[] a = peer.open("a", 6, 1);
            peer.open("b", 4, 1); // the client's share of 10 pages, exactly
            assertRefused(peer.exchange(new Frames.Writer(Frames.OPEN, 16).str("c").i32(1).i32(1).bytes()), "E-PD-QUOTA",
                    "request c: this client's requests hold 10 decode pages; 1 more would pass its share of 10");
            // a run of all the request's pages whose checksums exactly fill the frame passes both checks (and stops at its missing bytes)
            assertRefused(peer.exchange(pagesWithChecksums("a", a[0], 6, 6)), "E-PD-0",
                    "malformed PAGES frame: 0 data bytes for 6 pages; the layout takes " + 6L * LAYOUT.shape().layers()
                            * (LAYOUT.mlaPageBytes(16) + LAYOUT.indexPageBytes(16)));
            assertRefused(peer.exchange(pagesWithChecksums("a", a[0], 7, 6)), "E-PD-0",
                    "malformed PAGES frame: a run of 7 pages (request a may name at most 6, 6 checksums fit the frame)");
            assertRefused(peer.exchange(pagesWithChecksums("a", a[0], 6, 5)), "E-PD-0",
                    "malformed PAGES frame: a run of 6 pages (request a may name at most 6, 5 checksums fit the frame)");
            String longest = "i".repeat(DecodeServer.MAX_ID_BYTES); // an id of the longest length is read, then the request is unknown
            assertRefused(peer.exchange(pagesWithChecksums(longest, 0, 1, 0)), "E-PD-0",
                    "malformed PAGES frame: a run of 1 pages (request " + longest + " may name at most 63, 0 checksums fit the frame)");
            assertRefused(peer.exchange(pagesWithChecksums(longest + "i", 0, 1, 0)), "E-PD-0",
                    "malformed PAGES frame: a request id of 257 bytes (at most 256, 274 left in the frame)");
            assertRefused(peer.exchange(pagesWithChecksums("", 0, 1, 0)), "E-PD-0", // an empty id is read too
                    "malformed PAGES frame: a run of 1 pages (request  may name at most 63, 0 checksums fit the frame)");
            ByteBuffer idToTheEnd = ByteBuffer.allocate(4 + 1 + 4 + 3).order(ByteOrder.LITTLE_ENDIAN); // the id takes the rest of the frame
            idToTheEnd.putInt(idToTheEnd.capacity() - 4).put(Frames.PAGES).putInt(3).put("abc".getBytes(java.nio.charset.StandardCharsets.UTF_8));
            assertRefused(peer.exchange(idToTheEnd.array()), "E-PD-0", "malformed frame: fields run past its end");
            // a request nobody opened is unknown, not another client's
            assertRefused(peer.exchange(new Frames.Writer(Frames.COMPLETE, 16).str("nope").i32(0).bytes()), "E-PD-PAGE",
                    "completion from rank 0 for an unknown request");
        }
    }

    @Test
    void aClientGetsItsShareOfConnectionsAndOfThePool() throws Exception {
        DecodeServer.Limits limits = DecodeServer.Limits.DEFAULT.shares(32, 2, 10);
        byte[] id = new byte[Frames.CLIENT_ID_BYTES];
        java.util.Arrays.fill(id, (byte) 0xab);
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(64, 16, LAYOUT), "127.0.0.1", 0, limits);
             RawPeer a = new RawPeer(server.port()); RawPeer b = new RawPeer(server.port()); RawPeer c = new RawPeer(server.port());
             RawPeer other = new RawPeer(server.port())) {
            assertThat(a.hello(LAYOUT, 16, 2, id).type()).isEqualTo(Frames.HELLO_OK);
            assertThat(b.hello(LAYOUT, 16, 2, id).type()).isEqualTo(Frames.HELLO_OK);
            assertRefused(c.hello(LAYOUT, 16, 2, id), "E-PD-QUOTA", "client abababab… holds 2 connections, at most 2");
            a.open("x", 6, 1);
            assertRefused(a.exchange(new Frames.Writer(Frames.OPEN, 32).str("y").i32(5).i32(1).bytes()), "E-PD-QUOTA",
                    "request y: this client's requests hold 6 decode pages; 5 more would pass its share of 10");
            assertThat(other.hello(LAYOUT, 16, 1).type()).isEqualTo(Frames.HELLO_OK);
            other.open("z", 8, 1); // another client has a share of its own
            assertThat(a.exchange(new Frames.Writer(Frames.ABORT, 32).str("x").bytes()).type()).isEqualTo(Frames.ACK);
            a.open("y", 5, 1); // its pages went back: the share is free again
        }
    }

    private static void waitUntil(java.util.function.BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 100 && !condition.getAsBoolean(); i++) {
            TimeUnit.MILLISECONDS.sleep(20);
        }
        assertThat(condition.getAsBoolean()).isTrue();
    }

    @Test
    void releaseFreesAReadyRequestAndIsRefusedForOneNotReadyOrNotOpen() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        PageStore source = PageStore.onHeap("prefill rank", LAYOUT, 16, 4);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0);
             TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT);
             RawPeer consumer = new RawPeer(server.port())) {
            long[] d = client.open("done", 2, 1).block();
            client.send("done", 0, new PageRun(0, d[0], 2), source).block();
            client.complete("done", 0).block();
            client.open("busy", 3, 1).block();
            consumer.hello(LAYOUT, 16, 1);
            assertRefused(consumer.exchange(new Frames.Writer(Frames.RELEASE, 16).str("busy").bytes()), "E-PD-STATE",
                    "request busy is not ready: RELEASE frees a ready request, ABORT ends a transfer");
            assertRefused(consumer.exchange(new Frames.Writer(Frames.RELEASE, 16).str("ghost").bytes()), "E-PD-STATE", "request ghost is not open");
            assertThat(consumer.exchange(new Frames.Writer(Frames.RELEASE, 16).str("done").bytes()).type()).isEqualTo(Frames.ACK);
            assertThat(receiver.pagesInUse()).as("only the request still receiving holds pages").isEqualTo(3);
            assertThat(server.owners.size()).as("the released request's claim went with it, not at a later sweep").isEqualTo(1);
            long[] stats = client.stats().block();
            assertThat(stats).containsExactly(0, 1, 0, 0);
        }
    }

    @Test
    void aReadyRequestNobodyReleasesIsFreedByTheServerAfterItsTtl() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, null);
        DecodeServer.Limits limits = new DecodeServer.Limits(Duration.ofSeconds(10), Duration.ofMinutes(2), 64, Duration.ofMillis(200));
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, limits);
             TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", server.port(), 16, null, 1, TIMEOUT)) {
            for (int i = 0; i < 3 * 63 / 9; i++) { // the pool three times over, nobody consuming
                String id = "r" + i;
                long[] d = client.open(id, 9, 1).block(TIMEOUT.multipliedBy(10));
                client.send(id, 0, new PageRun(0, d[0], 9), null).block();
                client.complete(id, 0).block();
                long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
                while (receiver.pagesInUse() > 63 - 9 && System.nanoTime() < deadline) {
                    Thread.sleep(20); // the pool fills; the TTL frees the oldest ready requests for the next
                }
            }
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (receiver.pagesInUse() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(receiver.pagesInUse()).as("every ready request freed after its TTL").isZero();
            assertThat(receiver.expiredSessions()).isEqualTo(3 * 63 / 9);
            assertThat(client.stats().block()).containsExactly(0, 0, 0, 3 * 63 / 9);
        }
    }
}
