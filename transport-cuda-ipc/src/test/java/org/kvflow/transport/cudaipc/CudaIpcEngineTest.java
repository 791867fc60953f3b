package org.kvflow.transport.cudaipc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.pages.BufferImport;
import org.kvflow.pages.ChecksummingMemory;
import org.kvflow.pages.CrossingMemory;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.MissingCapabilityException;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.PageMemoryProvider;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.RandomPages;
import org.kvflow.transfer.RunShape;
import org.kvflow.transfer.TransferEngineUnavailableException;
import org.kvflow.transfer.TransferEngines;
import org.kvflow.transport.tcp.PageCrcs;

/** What the cuda-ipc engine refuses, before any GPU is touched (every refusal named), and how its placer runs ranks side by side: on any machine. */
class CudaIpcEngineTest {
    static final KvLayout LAYOUT = new KvLayout(new ModelShape("synthetic-toy", ModelKind.TOY_MLA, 2, 40, 8, 24), KvDtype.FP8_E4M3);

    private static IpcLandingDescription pool(long pages) {
        int mla = (int) LAYOUT.mlaPageBytes(16);
        int index = (int) LAYOUT.indexPageBytes(16);
        return new IpcLandingDescription(42, List.of(new IpcLandingDescription.Buffer(pages, mla, new byte[] {1}),
                new IpcLandingDescription.Buffer(pages, mla, new byte[] {2}), new IpcLandingDescription.Buffer(pages, index, new byte[] {3}),
                new IpcLandingDescription.Buffer(pages, index, new byte[] {4})));
    }

    @Test
    void aDescriptionTravelsWholeAndABadOneIsRefusedNamingWhatDoesNotFit() {
        IpcLandingDescription d = pool(64);
        IpcLandingDescription back = IpcLandingDescription.parse(d.bytes());
        assertThat(back.pid()).isEqualTo(42);
        assertThat(back.buffers()).hasSize(4);
        assertThat(back.buffers().get(2).pageBytes()).isEqualTo(LAYOUT.indexPageBytes(16));
        assertThat(back.buffers().get(3).handle()).containsExactly(4);
        byte[] bytes = d.bytes();
        assertThatThrownBy(() -> IpcLandingDescription.parse(java.util.Arrays.copyOf(bytes, 20))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a CUDA IPC landing description cut short (20 bytes)");
        assertThatThrownBy(() -> IpcLandingDescription.parse(java.util.Arrays.copyOf(bytes, bytes.length + 3))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("3 bytes after the CUDA IPC landing's 4 buffers");
        byte[] many = bytes.clone();
        many[8] = (byte) 0xFF;
        many[9] = (byte) 0xFF;
        assertThatThrownBy(() -> IpcLandingDescription.parse(many)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a CUDA IPC landing of 65535 buffers (at most 8192)");
        byte[] longHandle = bytes.clone();
        longHandle[12 + 12] = 100; // buffer 0's handle length
        assertThatThrownBy(() -> IpcLandingDescription.parse(longHandle)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the CUDA IPC landing's handle of buffer 0 of 100 bytes (1 to 4096, " + (bytes.length - 28) + " left)");
    }

    @Test
    void aDescriptionAtItsLimitsIsTakenAndOnePastThemIsRefusedNamingIt() {
        assertThat(IpcLandingDescription.parse(new IpcLandingDescription(1, List.of()).bytes()).buffers()).as("a pool of no buffers").isEmpty();
        IpcLandingDescription.Buffer edge = IpcLandingDescription.parse(new IpcLandingDescription(2, List.of(new IpcLandingDescription.Buffer(0, 1,
                new byte[IpcLandingDescription.MAX_HANDLE]))).bytes()).buffers().get(0);
        assertThat(edge.pages()).isZero();
        assertThat(edge.pageBytes()).isEqualTo(1);
        assertThat(edge.handle()).hasSize(4096);
        List<IpcLandingDescription.Buffer> most = java.util.Collections.nCopies(IpcLandingDescription.MAX_BUFFERS,
                new IpcLandingDescription.Buffer(1, 64, new byte[] {9}));
        assertThat(IpcLandingDescription.parse(new IpcLandingDescription(3, most).bytes()).buffers()).hasSize(8192);
        List<IpcLandingDescription.Buffer> oneMore = new java.util.ArrayList<>(most);
        oneMore.add(most.get(0));
        assertThatThrownBy(() -> IpcLandingDescription.parse(new IpcLandingDescription(3, oneMore).bytes())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a CUDA IPC landing of 8193 buffers (at most 8192)");
        byte[] negative = new IpcLandingDescription(3, List.of()).bytes();
        java.util.Arrays.fill(negative, 8, 12, (byte) 0xFF);
        assertThatThrownBy(() -> IpcLandingDescription.parse(negative)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a CUDA IPC landing of -1 buffers (at most 8192)");
        assertThatThrownBy(() -> IpcLandingDescription.parse(new IpcLandingDescription(2, List.of(new IpcLandingDescription.Buffer(0, 1,
                new byte[IpcLandingDescription.MAX_HANDLE + 1]))).bytes())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the CUDA IPC landing's handle of buffer 0 of 4097 bytes (1 to 4096, 4097 left)");
        assertThatThrownBy(() -> IpcLandingDescription.parse(new IpcLandingDescription(2, List.of(new IpcLandingDescription.Buffer(-1, 64,
                new byte[] {1}))).bytes())).isInstanceOf(IllegalArgumentException.class).hasMessage("buffer 0 of a CUDA IPC landing has -1 pages of 64 bytes");
        assertThatThrownBy(() -> IpcLandingDescription.parse(new IpcLandingDescription(2, List.of(new IpcLandingDescription.Buffer(1, 0,
                new byte[] {1}))).bytes())).isInstanceOf(IllegalArgumentException.class).hasMessage("buffer 0 of a CUDA IPC landing has 1 pages of 0 bytes");
    }

    /** A memory that counts the buffers handed back to it. */
    private static final class CountingFrees extends ChecksummingMemory {
        int frees;

        @Override
        public void free(PageBuffer buffer) {
            frees++;
            super.free(buffer);
        }
    }

    @Test
    void aRunEndingAtThePoolsLastPageLandsAndClosingFreesEveryOpenedBufferOnce() {
        CountingFrees memory = new CountingFrees();
        PageStore rank = RandomPages.fill(PageStore.allocate(memory, "prefill rank 0", LAYOUT, 16, 8), 5);
        CudaIpcPlacer placer = new CudaIpcPlacer(1);
        placer.connected(0, pool(64).bytes());
        assertThat(placer.place(0, rank, 4, 60, 4).block(Duration.ofSeconds(10))).as("decode pages 60..63 of 64")
                .isEqualTo(PageCrcs.of(rank, new long[] {4, 5, 6, 7}));
        assertThat(placer.openPools()).isEqualTo(1);
        placer.close();
        assertThat(memory.frees).as("the pool's four buffers, each once").isEqualTo(4);
        assertThat(placer.openPools()).isZero();
        assertThatThrownBy(() -> placer.place(0, rank, 4, 60, 4).block()).isInstanceOf(IllegalStateException.class)
                .hasMessage("the CUDA IPC placer is closed");
        placer.close();
        assertThat(placer.openPools()).as("a refused run opens nothing again").isZero();
        assertThat(memory.frees).as("closing twice frees nothing twice").isEqualTo(4);
    }

    /** A memory that can open another process's buffers but not copy pages with their checksums: the placer must refuse it before opening anything. */
    private static final class ImportOnly extends CrossingMemory implements BufferImport {
        @Override
        public PageBuffer importBuffer(String label, byte[] handle, long pages, int pageBytes) {
            throw new AssertionError("opened " + label + " for a run that cannot be placed");
        }
    }

    @Test
    void aPlacerRefusesRunsItCannotPlaceBeforeAnyCopy() {
        PageStore heap = RandomPages.fill(PageStore.onHeap("prefill rank 0", LAYOUT, 16, 8), 1);
        CudaIpcPlacer placer = new CudaIpcPlacer(2);
        try (placer) {
            assertThatThrownBy(() -> placer.place(0, heap, 0, 0, 1).block()).isInstanceOf(IllegalStateException.class)
                    .hasMessage("connection 0 has not shaken hands with a cuda-ipc decode server");
            assertThatThrownBy(() -> placer.connected(2, pool(64).bytes())).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("connection 2 of a CUDA IPC placer of 2");
            assertThatThrownBy(() -> placer.connected(0, new byte[3])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a CUDA IPC landing description cut short (3 bytes)");
            placer.connected(0, pool(64).bytes());
            assertThatThrownBy(() -> placer.place(0, heap, 0, 62, 4).block()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("decode pages 62..65 lie past the decode pool's MLA buffer of layer 0 (64 pages)");
            assertThatThrownBy(() -> placer.place(0, heap, 0, 0, 4).block()).isInstanceOf(MissingCapabilityException.class)
                    .hasMessage("the java page memory cannot open the decode pool in place: cuda-ipc needs the prefill pools in GPU memory (device cuda)");
            PageStore importOnly = PageStore.allocate(new ImportOnly(), "prefill rank 1", LAYOUT, 16, 8);
            assertThatThrownBy(() -> placer.place(0, importOnly, 0, 0, 4).block()).isInstanceOf(MissingCapabilityException.class)
                    .hasMessage("the java page memory cannot copy pages with their checksums in one pass");
            placer.connected(1, new IpcLandingDescription(7, pool(64).buffers().subList(0, 2)).bytes());
            assertThatThrownBy(() -> placer.place(1, heap, 0, 0, 4).block()).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("the decode side exported 2 buffers; 2 layers need 4");
            assertThat(placer.openPools()).as("nothing was opened for refused runs").isZero();
        }
        assertThatThrownBy(() -> placer.connected(0, pool(64).bytes())).isInstanceOf(IllegalStateException.class)
                .hasMessage("the CUDA IPC placer is closed");
        assertThatThrownBy(() -> new CudaIpcPlacer(0)).hasMessage("a CUDA IPC placer of 0 connections (at least 1)");
    }

    /** A rank's memory whose checked copies wait, once inside, until the test lets them go on. */
    private static final class HeldCopies extends ChecksummingMemory {
        final CountDownLatch inside = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);

        HeldCopies(ChecksummingMemory sameHost) {
            super(sameHost);
        }

        @Override
        public int[] copyPagesChecked(List<PageCopy> copies) {
            inside.countDown();
            try {
                if (!release.await(30, TimeUnit.SECONDS)) {
                    throw new AssertionError("the test never released the held copy");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
            return super.copyPagesChecked(copies);
        }
    }

    @Test
    void ranksInMemoriesOfTheirOwnCopySideBySideAndLandInTheOnePool() throws Exception {
        ChecksummingMemory host = new ChecksummingMemory();
        HeldCopies slow = new HeldCopies(host);
        PageStore rank0 = RandomPages.fill(PageStore.allocate(slow, "prefill rank 0", LAYOUT, 16, 8), 3);
        PageStore rank1 = RandomPages.fill(PageStore.allocate(new ChecksummingMemory(host), "prefill rank 1", LAYOUT, 16, 8), 4);
        long[] pages = {0, 1, 2, 3};
        try (CudaIpcPlacer placer = new CudaIpcPlacer(2)) {
            placer.connected(0, pool(64).bytes());
            placer.connected(1, pool(64).bytes());
            CompletableFuture<int[]> first = placer.place(0, rank0, 0, 0, 4).toFuture();
            assertThat(slow.inside.await(10, TimeUnit.SECONDS)).as("rank 0's copy started").isTrue();
            int[] second = placer.place(1, rank1, 0, 8, 4).block(Duration.ofSeconds(10));
            assertThat(first).as("rank 0's copy is still held while rank 1's finished").isNotDone();
            assertThat(second).isEqualTo(PageCrcs.of(rank1, pages));
            slow.release.countDown();
            assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(PageCrcs.of(rank0, pages));
            assertThat(placer.openPools()).as("the pool opened once in each rank's memory").isEqualTo(2);
            PageStore decode = PageStore.allocate(new ChecksummingMemory(host), "decode view", LAYOUT, 16, 64);
            for (int b = 0; b < 4; b++) {
                // the view's buffers are the handles' buffers: what both ranks placed, side by side
                IpcLandingDescription.Buffer d = pool(64).buffers().get(b);
                PageBuffer opened = ((ChecksummingMemory) decode.memory()).importBuffer("decode " + b, d.handle(), d.pages(), d.pageBytes());
                KvComponent component = KvComponent.values()[b / 2];
                for (int k = 0; k < 4; k++) {
                    assertThat(bytes(decode, opened, k)).as("buffer %d page %d from rank 0", b, k).isEqualTo(bytes(rank0, rank0.buffer(b % 2, component), k));
                    assertThat(bytes(decode, opened, 8 + k)).as("buffer %d page %d from rank 1", b, 8 + k).isEqualTo(bytes(rank1, rank1.buffer(b % 2, component), k));
                }
            }
        }
    }

    private static byte[] bytes(PageStore store, PageBuffer buffer, long page) {
        byte[] out = new byte[buffer.pageBytes()];
        store.memory().read(buffer, page * buffer.pageBytes(), out.length, out, 0);
        return out;
    }

    @Test
    void aLandingNeedsAPoolItCanExportAndATargetAHostOfItsOwn() {
        assertThatThrownBy(() -> new CudaIpcLanding(PageStore.onHeap("decode pool", LAYOUT, 16, 4))).isInstanceOf(MissingCapabilityException.class)
                .hasMessage("the java page memory cannot export its buffers to other processes (the cuda page memory can)");
        assertThatThrownBy(() -> CudaIpcTarget.of("10.1.2.3", 9).open(new RunShape(16, 2, LAYOUT))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cuda-ipc to 10.1.2.3: CUDA IPC reaches only a decode server on this host (a loopback address)");
        assertThat(CudaIpcTarget.of("127.0.0.1", 9)).hasToString("cuda-ipc 127.0.0.1:9");
    }

    /** With TLS material the control connection is mutual TLS, and requests go under the client certificate's name. */
    @Test
    void aTargetWithTlsNamesRequestsByTheClientsCertificate(@TempDir Path dir) throws Exception {
        CudaIpcTarget target = CudaIpcTarget.of("127.0.0.1", 9).tls(org.kvflow.transport.tcp.TcpFixtures.tenantTls(dir, "tenant-a"));
        assertThat(target).hasToString("cuda-ipc tls 127.0.0.1:9");
        try (org.kvflow.transport.tcp.TcpTransferBackend backend = (org.kvflow.transport.tcp.TcpTransferBackend) target.open(new RunShape(16, 2, LAYOUT))) {
            assertThat(backend.wire("r")).isEqualTo("tenant-a/r");
        }
        try (org.kvflow.transport.tcp.TcpTransferBackend plain = (org.kvflow.transport.tcp.TcpTransferBackend) CudaIpcTarget.of("127.0.0.1", 9)
                .open(new RunShape(16, 2, LAYOUT))) {
            assertThat(plain.wire("r")).isEqualTo("r");
        }
    }

    @Test
    void withoutACudaDeviceTheEngineIsRefusedByName() {
        int devices = 0;
        for (PageMemoryProvider p : java.util.ServiceLoader.load(PageMemoryProvider.class)) {
            devices += p.name().equals("cuda") ? p.devices() : 0;
        }
        assumeThat(devices).as("this machine has a CUDA device: CudaIpcTransferGpuTest covers the engine there").isZero();
        assertThat(TransferEngines.names()).contains("tcp", "cuda-ipc");
        assertThatThrownBy(() -> TransferEngines.find("cuda-ipc")).isInstanceOf(TransferEngineUnavailableException.class)
                .hasMessageStartingWith("transfer engine cuda-ipc is unavailable: ");
    }
}
