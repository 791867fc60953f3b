package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvLayout;
import org.kvflow.dsl.DslTest;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.decode.DecodeReceiver;
import reactor.core.publisher.Flux;

/**
 * Every attack of the review at once against one live decode server, while an honest prefill
 * pipeline streams its requests to it over TCP: the honest requests all complete with decode KV
 * equal to an in-memory run's, every hostile frame is refused, every hostile connection closed, and
 * the server's heap is back where it started. Sizes come from {@code -Dkvflow.abuse.requests} and
 * {@code -Dkvflow.abuse.connections}; CI runs the small defaults, {@code bench/abuse/run.sh} larger ones.
 */
class AbuseDrillTest {
    private static final KvLayout LAYOUT = DslTest.MODEL.layout();

    @Test
    void everyAttackAtOnceWhileHonestTransfersVerify() throws Exception {
        int requestCount = Integer.getInteger("kvflow.abuse.requests", 16);
        int flood = Integer.getInteger("kvflow.abuse.connections", 40);
        List<PrefillRequest> requests = DslTest.requests(requestCount);
        DecodeReceiver local = new DecodeReceiver(8192, 16, LAYOUT);
        Flux.fromIterable(requests).transform(DslTest.flow(local).build()).blockLast(Duration.ofMinutes(2));

        DecodeReceiver receiver = new DecodeReceiver(8192, 16, LAYOUT);
        DecodeServer.Limits limits = new DecodeServer.Limits(Duration.ofMillis(400), Duration.ofSeconds(3), 24);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, limits);
             TcpTransferBackend probe = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 4, Duration.ofSeconds(10))) {
            probe.connect().block();
            long heapBefore = usedHeapAfterGc();
            CompletableFuture<List<PrefillResult>> honest = CompletableFuture.supplyAsync(() -> Flux.fromIterable(requests)
                    .transform(DslTest.modelFlow()
                            .transfer(PdTransfer.via(TcpTarget.of("127.0.0.1", server.port()).timeout(Duration.ofSeconds(10)))).build())
                    .collectList().block(Duration.ofMinutes(2)));

            // the flood fills the connection cap by design, so a client connecting during it is refused: the honest pipeline's
            // connections (one per CP rank, made at its first OPEN) are let in first, and its transfers then run under the attacks
            int honestConnections = 2 * DslTest.CONFIG.cpSize(); // the probe's and the pipeline's, one per CP rank each
            for (int i = 0; i < 500 && server.connections() < honestConnections; i++) {
                TimeUnit.MILLISECONDS.sleep(10);
            }
            RawPeer attacker = new RawPeer(server.port());
            attacker.hello(LAYOUT, 16, 2);
            List<RawPeer> mute = new ArrayList<>();
            for (int i = 0; i < flood; i++) {
                mute.add(new RawPeer(server.port())); // no HELLO: closed at the deadline, or at once past the cap
            }
            long refused = hostile(attacker, requests);
            mute.forEach(p -> assertThat(p.closedWithin(Duration.ofSeconds(5))).isTrue());
            mute.forEach(RawPeer::close);

            List<PrefillResult> results = honest.get(2, TimeUnit.MINUTES);
            assertThat(results).hasSize(requestCount).allMatch(r -> r instanceof PrefillResult.Completed);
            for (PrefillRequest r : requests) {
                TcpTransferBackend.Digest digest = probe.digest(r.id(), r.seqLen()).block();
                assertThat(digest.ready()).as("%s ready", r.id()).isTrue();
                assertThat(digest.crc()).as("decode KV of %s", r.id()).isEqualTo(local.digest(r.id(), r.seqLen()));
            }
            assertThat(refused).isEqualTo(13);
            for (int i = 0; i < 100 && server.connections() > honestConnections; i++) {
                TimeUnit.MILLISECONDS.sleep(20);
            }
            assertThat(server.connections()).as("the probe's and the pipeline's connections remain").isLessThanOrEqualTo(honestConnections);
            assertThat(receiver.openSessions()).as("only the honest requests hold decode pages").isEqualTo(requestCount);
            long grown = usedHeapAfterGc() - heapBefore;
            assertThat(grown).as("heap growth after the attacks, bytes").isLessThan(32L << 20);
        }
    }

    /** One hostile peer's frames, each of which must be refused; returns how many were. Closes the peer. */
    private static long hostile(RawPeer attacker, List<PrefillRequest> victims) throws InterruptedException {
        long refused = 0;
        try (RawPeer peer = attacker) {
            long[] own = peer.open("mine", 2, 2);
            List<byte[]> frames = List.of(
                    pagesHeader(0x7FFFFFF0, "mine", 0, own[0], 1),
                    pagesHeader(4, "mine", 0, own[0], 0x7FFFFFFF),
                    new Frames.Writer(Frames.COMPLETE, 16).str("mine").i32(0x7FFFFFFF).bytes(),
                    new Frames.Writer(Frames.OPEN, 16).str("huge").i32(0x7FFFFFFF).i32(1).bytes(),
                    new Frames.Writer(Frames.OPEN, 16).str("many").i32(1).i32(1_000_000).bytes(),
                    new Frames.Writer(Frames.OPEN, 16).i32(10_000).bytes(),
                    new byte[] {0, 0, 0, 0},
                    new Frames.Writer(Frames.COMPLETE, 4).i32(3).bytes(),
                    new Frames.Writer(Frames.PAGES, 1 << 10).str("mine").i32(0).i64(own[0]).i32(1).u8(1).i32(0).raw(new byte[7], 0, 7).bytes(),
                    new Frames.Writer((byte) 77, 0).bytes());
            for (byte[] frame : frames) {
                Frames.Reader reply = peer.exchange(frame);
                refused += reply != null && reply.type() == Frames.REJECT ? 1 : 0;
            }
            for (PrefillRequest victim : victims.subList(0, 3)) { // frames for requests this peer did not open
                Frames.Reader reply = peer.exchange(new Frames.Writer(Frames.COMPLETE, 16).str(victim.id()).i32(0).bytes());
                refused += reply != null && reply.type() == Frames.REJECT ? 1 : 0;
            }
            peer.open("hoard", 4000, 1); // then hang up: released when this connection closes
        }
        return refused;
    }

    private static byte[] pagesHeader(int idLength, String id, int rank, long dst, int length) {
        ByteBuffer b = ByteBuffer.allocate(4 + 1 + 4 + id.length() + 4 + 8 + 4 + 1).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(b.capacity() - 4).put(Frames.PAGES).putInt(idLength).put(id.getBytes()).putInt(rank).putLong(dst).putInt(length).put((byte) 1);
        return b.array();
    }

    private static long usedHeapAfterGc() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            TimeUnit.MILLISECONDS.sleep(50);
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
