package org.kvflow.transport.ucx;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.model.KvLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.decode.TransferRejectedException;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.MissingCapabilityException;
import org.kvflow.pages.NativePageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.RunShape;
import org.kvflow.transfer.TransferEngineUnavailableException;
import org.kvflow.transfer.TransferEngines;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.DecodeServerProcess;
import org.kvflow.transport.tcp.DecodeUnreachableException;
import org.kvflow.transport.tcp.ForwardingPlacer;
import org.kvflow.transport.tcp.PageCrcs;
import org.kvflow.transport.tcp.PagePlacer;
import org.kvflow.transport.tcp.TcpFixtures;
import org.kvflow.transport.tcp.TcpTransferBackend;
import org.kvflow.transport.tcp.TransferTls;
import org.openucx.jucx.ucp.UcpContext;
import org.openucx.jucx.ucp.UcpParams;
import org.openucx.jucx.ucp.UcpRequest;
import org.openucx.jucx.ucp.UcpWorker;
import org.openucx.jucx.ucp.UcpWorkerParams;
import reactor.core.publisher.Mono;

/** The ucx engine over UCX's TCP and shared-memory transports: pages put into a registered decode pool count once their CRC32C checks. */

class UcxTransferTest {
    private static final KvLayout LAYOUT = TcpFixtures.LAYOUT;
    private static final RunShape TWO_RANKS = new RunShape(16, 2, LAYOUT);

    private static PageStore filled(int pages, long seed) {
        return org.kvflow.pages.RandomPages.fill(PageStore.onHeap("prefill rank", LAYOUT, 16, pages), seed);
    }

    @Test
    void pagesPutByUcxLandInTheDecodePoolAndCountOnceChecked() {
        PageStore rank0 = filled(8, 1);
        PageStore rank1 = filled(8, 2);
        try (UcxDecode decode = new UcxDecode(null);
             TcpTransferBackend prefill = (TcpTransferBackend) UcxTarget.of("127.0.0.1", decode.server.port()).open(TWO_RANKS)) {
            long[] d = TcpFixtures.twoRankTransfer(prefill, "r", rank0, rank1);
            assertThat(decode.receiver.isReady("r")).isTrue();
            for (int i = 0; i < 5; i++) {
                PageStore from = i < 3 ? rank0 : rank1;
                long page = 1 + i; // rank 0 sent its pages 1..3, rank 1 its pages 4..5
                for (KvComponent c : KvComponent.values()) {
                    assertThat(decode.receiver.store().readPage(c, d[i])).as("position %d %s", i, c).isEqualTo(from.readPage(c, page));
                }
            }
            long pageBytes = (long) LAYOUT.shape().layers() * (LAYOUT.mlaPageBytes(16) + LAYOUT.indexPageBytes(16));
            assertThat(prefill.bytesSent()).as("the connection carried checksums, not pages").isLessThan(5 * pageBytes);
            assertThatThrownBy(() -> prefill.send("r", 0, new PageRun(0, 70, 1), rank0).block())
                    .isInstanceOf(TransferRejectedException.class)
                    .hasMessage("transfer of request r rejected: decode pages 70..70 lie past the decode pool's MLA buffer of layer 0 (64 pages)");
        }
    }

    /** Parts of two MLA pages: rank 0's run of three pages crosses a part boundary in every MLA buffer, and lands whole. */
    @Test
    void aRunCutIntoSeveralPartsLandsWhole() {
        PageStore rank0 = filled(8, 6);
        PageStore rank1 = filled(8, 7);
        int twoMlaPages = (int) (2 * LAYOUT.mlaPageBytes(16));
        try (UcxDecode decode = new UcxDecode(null);
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", decode.server.port(), 16, LAYOUT, 2, Duration.ofSeconds(30), null,
                     new UcxPlacer(2, Duration.ofSeconds(30), twoMlaPages))) {
            long[] d = TcpFixtures.twoRankTransfer(prefill, "r", rank0, rank1);
            assertThat(decode.receiver.isReady("r")).as("every page's checksum held").isTrue();
            for (int i = 0; i < 5; i++) {
                PageStore from = i < 3 ? rank0 : rank1;
                for (KvComponent c : KvComponent.values()) {
                    assertThat(decode.receiver.store().readPage(c, d[i])).as("position %d %s", i, c).isEqualTo(from.readPage(c, 1 + i));
                }
            }
        }
    }

    @Test
    void aPrefillThatVanishesMidRequestLeavesNoPageHeld() throws Exception {
        PageStore rank0 = filled(8, 3);
        try (UcxDecode decode = new UcxDecode(null)) {
            TcpTransferBackend prefill = (TcpTransferBackend) UcxTarget.of("127.0.0.1", decode.server.port()).open(new RunShape(16, 1, LAYOUT));
            long[] d = prefill.open("gone", 4, 1).block();
            prefill.send("gone", 0, new PageRun(0, d[0], 2), rank0).block();
            assertThat(decode.receiver.pagesInUse()).isEqualTo(4);
            prefill.close(); // before COMPLETE: the request never becomes ready
            long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            while (decode.receiver.pagesInUse() > 0 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(decode.receiver.pagesInUse()).as("pages of a request its client left unfinished").isZero();
        }
    }

    /**
     * A run whose reported checksum differs from what landed (the engine's puts arrived, the report
     * says otherwise) is refused by the decode side's own check of the pool's bytes: counted, and
     * none of its pages counts as written.
     */
    @Test
    void aRunPutByUcxWhoseChecksumDiffersIsRefusedCountedAndLeftUnwritten() {
        PageStore rank0 = filled(4, 8);
        try (UcxDecode decode = new UcxDecode(null);
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", decode.server.port(), 16, LAYOUT, 1, Duration.ofSeconds(30), null,
                     firstChecksumFlipped(new UcxPlacer(1, Duration.ofSeconds(30))))) {
            long[] d = prefill.open("r", 2, 1).block();
            int landed = PageCrcs.of(rank0, 0);
            assertThatThrownBy(() -> prefill.send("r", 0, new PageRun(0, d[0], 2), rank0).block())
                    .isInstanceOf(TransferRejectedException.class)
                    .hasMessage("transfer of request r rejected: E-PD-CRC: request r: page " + d[0] + " landed with crc32c "
                            + Integer.toHexString(landed) + ", placed as " + Integer.toHexString(landed ^ 1));
            assertThat(decode.server.rejectedPages()).isEqualTo(2);
            prefill.complete("r", 0).block();
            assertThat(decode.receiver.isReady("r")).as("the rank completed, yet nothing of its run counts as written").isFalse();
        }
    }

    /**
     * A second client's run into pages of a request it did not open is refused by owner, and the
     * owner's run then lands and counts. UCX puts are one-sided: the stranger's bytes reach the pool
     * before its report is refused, so what protects the request is that they never count and the
     * owner's checked run replaces them (docs/transfer-engines.md: what is checked, and what is not).
     */
    @Test
    void aStrangersRunIntoAnotherClientsRequestIsRefusedByOwnerAndTheOwnersRunCounts() {
        PageStore honestPages = filled(4, 9);
        PageStore strangerPages = filled(4, 10);
        RunShape oneRank = new RunShape(16, 1, LAYOUT);
        try (UcxDecode decode = new UcxDecode(null);
             TcpTransferBackend honest = (TcpTransferBackend) UcxTarget.of("127.0.0.1", decode.server.port()).open(oneRank);
             TcpTransferBackend stranger = (TcpTransferBackend) UcxTarget.of("127.0.0.1", decode.server.port()).open(oneRank)) {
            long[] d = honest.open("victim", 2, 1).block();
            assertThatThrownBy(() -> stranger.send("victim", 0, new PageRun(0, d[0], 2), strangerPages).block())
                    .isInstanceOf(TransferRejectedException.class)
                    .hasMessage("transfer of request victim rejected: E-PD-OWNER: request victim was opened by another client");
            assertThat(decode.receiver.isReady("victim")).isFalse();
            honest.send("victim", 0, new PageRun(0, d[0], 2), honestPages).block();
            honest.complete("victim", 0).block();
            assertThat(decode.receiver.isReady("victim")).isTrue();
            for (int i = 0; i < 2; i++) {
                for (KvComponent c : KvComponent.values()) {
                    assertThat(decode.receiver.store().readPage(c, d[i])).as("position %d %s", i, c).isEqualTo(honestPages.readPage(c, i));
                }
            }
        }
    }

    /**
     * With mutual TLS on the control connection only a client the CA signed gets the pool's
     * description: its pages land by UCX under its certificate's name, and a client without TLS is
     * turned away at its handshake (certificates of the tcp transport's tests, tls-tenants).
     */
    @Test
    void overMutualTlsACertifiedClientLandsUnderItsNameAndAPlainOneIsTurnedAway(@TempDir Path dir) throws Exception {
        TransferTls server = TcpFixtures.tenantTls(dir, "server");
        TransferTls tenant = TcpFixtures.tenantTls(dir, "tenant-a");
        PageStore rank0 = filled(4, 11);
        RunShape oneRank = new RunShape(16, 1, LAYOUT);
        try (UcxDecode decode = new UcxDecode(server);
             TcpTransferBackend prefill = (TcpTransferBackend) UcxTarget.of("127.0.0.1", decode.server.port()).tls(tenant).open(oneRank);
             TcpTransferBackend plain = (TcpTransferBackend) UcxTarget.of("127.0.0.1", decode.server.port()).timeout(Duration.ofSeconds(3))
                     .open(oneRank)) {
            long[] d = prefill.open("r", 2, 1).block();
            prefill.send("r", 0, new PageRun(0, d[0], 2), rank0).block();
            prefill.complete("r", 0).block();
            assertThat(decode.receiver.isReady("tenant-a/r")).as("the id under the client certificate's name").isTrue();
            for (int i = 0; i < 2; i++) {
                for (KvComponent c : KvComponent.values()) {
                    assertThat(decode.receiver.store().readPage(c, d[i])).as("position %d %s", i, c).isEqualTo(rank0.readPage(c, i));
                }
            }
            assertThatThrownBy(() -> plain.connect().block()).as("no TLS at all").isInstanceOf(DecodeUnreachableException.class);
            assertThat(decode.receiver.openSessions()).isEqualTo(1);
        }
    }

    /** {@code ucx} with the first page's checksum of every run reported wrong: bytes land as put, the report lies. */
    private static PagePlacer firstChecksumFlipped(UcxPlacer ucx) {
        return new ForwardingPlacer(ucx) {
            @Override
            public Mono<int[]> place(int lane, PageStore source, long srcStart, long dstStart, int length) {
                return super.place(lane, source, srcStart, dstStart, length).map(crcs -> {
                    crcs[0] ^= 1;
                    return crcs;
                });
            }
        };
    }

    /** A decode server on loopback whose pool lies in native memory and takes page bytes by UCX: what most tests here send to. */
    private static final class UcxDecode implements AutoCloseable {
        private final NativePageMemory memory = new NativePageMemory();
        final DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT, memory);
        private final UcxLanding landing = new UcxLanding(receiver.store());
        final DecodeServer server;

        UcxDecode(@Nullable TransferTls tls) {
            server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, tls, landing);
        }

        @Override
        public void close() {
            server.close();
            landing.close();
            memory.close();
        }
    }

    @Test
    void aDecodeProcessLandsWhatTheInProcessReceiverDigestsAlike() throws Exception {
        PageStore rank0 = filled(8, 4);
        PageStore rank1 = filled(8, 5);
        try (DecodeServerProcess decode = startDecode()) {
            int port = decode.port();
            DecodeReceiver reference = new DecodeReceiver(64, 16, LAYOUT);
            InMemoryTransferBackend local = new InMemoryTransferBackend(reference);
            long[] dl = local.open("q", 5, 2).block();
            local.send("q", 0, new PageRun(1, dl[0], 3), rank0).block();
            local.send("q", 1, new PageRun(4, dl[3], 2), rank1).block();
            local.complete("q", 0).block();
            local.complete("q", 1).block();
            try (TcpTransferBackend prefill = (TcpTransferBackend) UcxTarget.of("127.0.0.1", port).open(TWO_RANKS)) {
                TcpFixtures.twoRankTransfer(prefill, "q", rank0, rank1);
                TcpTransferBackend.Digest digest = prefill.digest("q", 5 * 16).block();
                assertThat(digest.ready()).isTrue();
                assertThat(digest.crc()).as("the other process's pool holds the bytes sent").isEqualTo(reference.digest("q", 5 * 16));
            }
        }
    }

    @Test
    @Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // a put into the dead process that never completes fails here
    void aDecodeProcessKilledMidRequestFailsTheSendTypedAndTheClientConnectsAgainLater() throws Exception {
        PageStore rank0 = filled(8, 6);
        try (DecodeServerProcess decode = startDecode();
             TcpTransferBackend prefill = (TcpTransferBackend) UcxTarget.of("127.0.0.1", decode.port()).timeout(Duration.ofSeconds(5))
                .open(new RunShape(16, 1, LAYOUT))) {
            long[] d = prefill.open("k", 4, 1).block();
            decode.kill();
            assertThatThrownBy(() -> prefill.send("k", 0, new PageRun(0, d[0], 4), rank0).block())
                    .isInstanceOf(DecodeUnreachableException.class);
            try (DecodeServerProcess again = startDecode();
                 TcpTransferBackend next = (TcpTransferBackend) UcxTarget.of("127.0.0.1", again.port()).open(new RunShape(16, 1, LAYOUT))) {
                long[] e = next.open("k2", 2, 1).block();
                next.send("k2", 0, new PageRun(0, e[0], 2), rank0).block();
                next.complete("k2", 0).block();
                assertThat(next.digest("k2", 32).block().ready()).isTrue();
            }
        }
    }

    private static DecodeServerProcess startDecode() throws java.io.IOException {
        return DecodeServerProcess.start(UcxDecodeServerMain.class, "256m", 0, 64, 16, LAYOUT);
    }

    /**
     * The wait under every put and flush is bounded: a request that never completes (a tagged
     * receive no one answers, as a flush to a vanished peer can be) fails once the deadline passes,
     * naming what waited, instead of spinning the worker thread forever.
     */
    @Test
    @Timeout(value = 60, threadMode = Timeout.ThreadMode.SEPARATE_THREAD) // an unbounded wait fails here instead of hanging the build
    void aRequestThatNeverCompletesFailsAtTheDeadlineNamingWhatWaited() throws Exception {
        try (UcpContext context = new UcpContext(new UcpParams().requestTagFeature());
             UcpWorker worker = context.newWorker(new UcpWorkerParams())) {
            UcpRequest never = worker.recvTaggedNonBlocking(ByteBuffer.allocateDirect(64), null);
            long start = System.nanoTime();
            assertThatThrownBy(() -> UcxPlacer.await(worker, never, start + Duration.ofMillis(200).toNanos(), Duration.ofMillis(200), "connection 3: the flush of its puts"))
                    .isInstanceOf(TimeoutException.class)
                    .hasMessage("connection 3: the flush of its puts did not complete within 200 ms; the decode side is taken as gone");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(200), Duration.ofSeconds(10));
            worker.cancelRequest(never);
            UcxPlacer.await(worker, never, System.nanoTime() + Duration.ofSeconds(5).toNanos(), Duration.ofSeconds(5), "the cancelled receive");
        }
    }

    @Test
    void whatTheEngineRefusesIsNamed() {
        assertThatThrownBy(() -> new UcxLanding(PageStore.onHeap("decode pool", LAYOUT, 16, 4))).isInstanceOf(MissingCapabilityException.class)
                .hasMessage("the java page memory has no buffers at fixed host addresses for UCX to register (the native page memory has)");
        assertThatThrownBy(() -> UcxTarget.of("10.1.2.3", 9).open(TWO_RANKS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ucx to 10.1.2.3: UCX carries no TLS, so a host beyond loopback needs a fabric the operator trusts (UcxTarget.trustedFabric)");
        assertThatThrownBy(() -> new UcxPlacer(0, Duration.ofSeconds(1))).hasMessage("a UCX placer of 0 connections (at least 1)");
        assertThatThrownBy(() -> LandingDescription.parse(new byte[] {5, 0, 0, 0, 1})).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the UCX landing's worker address of 5 bytes (at most 65536, 1 left)");
    }

    @Test
    void aPlacerRefusesRunsItCannotPlaceBeforeAnyPut() {
        PageStore heap = filled(8, 6);
        try (UcxDecode decode = new UcxDecode(null)) {
            LandingDescription landing = LandingDescription.parse(decode.landing.describe());
            UcxPlacer placer = new UcxPlacer(2, Duration.ofSeconds(30));
            try (placer) {
                assertThatThrownBy(() -> placer.place(0, heap, 0, 0, 1).block()).isInstanceOf(IllegalStateException.class)
                        .hasMessage("connection 0 has not shaken hands with a ucx decode server");
                assertThatThrownBy(() -> placer.connected(2, landing.bytes())).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("connection 2 of a UCX placer of 2");
                placer.connected(1, new LandingDescription(landing.worker(), landing.buffers().subList(0, 1)).bytes());
                assertThatThrownBy(() -> placer.place(1, heap, 0, 0, 4).block()).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("the decode side registered 1 buffers; 1 layers need 2");
            }
            assertThatThrownBy(() -> placer.connected(0, landing.bytes())).isInstanceOf(IllegalStateException.class)
                    .hasMessage("the UCX placer is closed");
        }
    }

    /** Straight through the placer into a landing of two layers, in parts of one MLA page: every layer's buffers, and the pool's edges. */
    @Test
    void aTwoLayerRunEndingAtThePoolsLastPageLandsInEachLayersBuffers() {
        KvLayout twoLayers = new KvLayout(new org.kvflow.core.model.ModelShape("synthetic-toy", org.kvflow.core.model.ModelKind.TOY_MLA, 2, 40, 8, 24),
                org.kvflow.core.model.KvDtype.FP8_E4M3);
        PageStore rank = org.kvflow.pages.RandomPages.fill(PageStore.onHeap("prefill rank", twoLayers, 16, 8), 9);
        try (NativePageMemory memory = new NativePageMemory()) {
            PageStore pool = PageStore.allocate(memory, "decode pool", twoLayers, 16, 64);
            try (UcxLanding landing = new UcxLanding(pool);
                 UcxPlacer placer = new UcxPlacer(1, Duration.ofSeconds(30), (int) twoLayers.mlaPageBytes(16))) {
                placer.connected(0, landing.describe());
                assertThat(placer.place(0, rank, 4, 60, 4).block(Duration.ofSeconds(30))).as("decode pages 60..63 of 64")
                        .isEqualTo(PageCrcs.of(rank, new long[] {4, 5, 6, 7}));
                for (int l = 0; l < 2; l++) {
                    for (KvComponent c : KvComponent.values()) {
                        for (int k = 0; k < 4; k++) {
                            assertThat(pool.readPage(l, c, 60 + k)).as("layer %d %s page %d", l, c, 60 + k).isEqualTo(rank.readPage(l, c, 4 + k));
                        }
                    }
                }
                assertThat(placer.place(0, rank, 0, 0, 2).block(Duration.ofSeconds(30))).as("decode pages 0..1, the pool's first")
                        .isEqualTo(PageCrcs.of(rank, new long[] {0, 1}));
                assertThat(pool.readPage(1, KvComponent.INDEX, 1)).isEqualTo(rank.readPage(1, KvComponent.INDEX, 1));
                assertThatThrownBy(() -> placer.place(0, rank, 4, 61, 4).block()).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("decode pages 61..64 lie past the decode pool's MLA buffer of layer 0 (64 pages)");
                assertThatThrownBy(() -> placer.place(0, rank, 0, -1, 2).block()).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("decode pages -1..0 lie past the decode pool's MLA buffer of layer 0 (64 pages)");
                assertThatThrownBy(() -> placer.place(0, filled(8, 10), 0, 0, 2).block()).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("the decode side registered 4 buffers; 1 layers need 2");
            }
            PageStore oneLayerPool = PageStore.allocate(memory, "decode pool of one layer", LAYOUT, 16, 64);
            try (UcxLanding landing = new UcxLanding(oneLayerPool); UcxPlacer placer = new UcxPlacer(1, Duration.ofSeconds(30))) {
                placer.connected(0, landing.describe());
                assertThatThrownBy(() -> placer.place(0, rank, 0, 0, 2).block()).isInstanceOf(IllegalArgumentException.class)
                        .hasMessage("the decode side registered 2 buffers; 2 layers need 4");
            }
        }
    }

    @Test
    void engineersFindTheEngineByName() {
        assertThat(TransferEngines.find("ucx")).isInstanceOf(UcxEngine.class);
        assertThat(TransferEngines.names()).contains("tcp", "ucx");
        assertThatThrownBy(() -> TransferEngines.find("rdma")).isInstanceOf(TransferEngineUnavailableException.class)
                .hasMessageStartingWith("transfer engine rdma is unavailable: no engine of that name on the class path; found [");
    }
}
