package org.kvflow.transport.cudaipc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvLayout;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.RandomPages;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.TransferEngines;
import org.kvflow.transport.tcp.DecodeServerProcess;
import org.kvflow.transport.tcp.DecodeUnreachableException;
import org.kvflow.transport.tcp.TcpFixtures;
import org.kvflow.transport.tcp.TcpTransferBackend;

/**
 * On the GPU machine ({@code -Dgroups=cuda}): prefill rank pools in GPU memory copy their pages
 * GPU to GPU into a decode process's pool in GPU memory, opened by CUDA IPC; the decode process
 * holds what an in-process receiver holds for the same sends, checked there on the GPU; a killed
 * decode process fails the send typed, and the next handshake closes its opened pool.
 */
@Tag("cuda")
class CudaIpcTransferGpuTest {
    private static final KvLayout LAYOUT = CudaIpcEngineTest.LAYOUT;
    private static PageMemory gpu;

    @BeforeAll
    static void open() {
        gpu = PageMemories.open("cuda");
    }

    @AfterAll
    static void close() {
        gpu.close();
    }

    private static PageStore filled(String label, int pages, long seed) {
        return RandomPages.fill(PageStore.allocate(gpu, label, LAYOUT, 16, pages), seed);
    }

    private static long reference(String id, PageStore rank0, PageStore rank1) {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        InMemoryTransferBackend local = new InMemoryTransferBackend(receiver);
        long[] d = local.open(id, 5, 2).block();
        local.send(id, 0, new PageRun(1, d[0], 3), rank0).block();
        local.send(id, 1, new PageRun(4, d[3], 2), rank1).block();
        local.complete(id, 0).block();
        local.complete(id, 1).block();
        return receiver.digest(id, 5 * 16);
    }

    @Test
    void pagesCopiedGpuToGpuLandInTheDecodeProcessAsTheyWouldInProcess() throws Exception {
        assertThat(TransferEngines.find("cuda-ipc")).isInstanceOf(CudaIpcEngine.class);
        PageStore rank0 = filled("prefill rank 0", 8, 4);
        PageStore rank1 = filled("prefill rank 1", 8, 5);
        CudaIpcPlacer placer = new CudaIpcPlacer(2);
        try (DecodeServerProcess decode = startDecode();
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", decode.port(), 16, LAYOUT, 2, Duration.ofSeconds(10), null, placer)) {
            TcpFixtures.twoRankTransfer(prefill, "q", rank0, rank1);
            TcpTransferBackend.Digest digest = prefill.digest("q", 5 * 16).block();
            assertThat(digest.ready()).isTrue();
            assertThat(digest.crc()).as("the decode process's GPU pool holds the bytes sent").isEqualTo(reference("q", rank0, rank1));
            long pageBytes = (long) LAYOUT.shape().layers() * (LAYOUT.mlaPageBytes(16) + LAYOUT.indexPageBytes(16));
            assertThat(prefill.bytesSent()).as("the connections carried checksums, not pages").isLessThan(5 * pageBytes);
            assertThat(placer.openPools()).as("both ranks' connections opened the one pool once").isEqualTo(1);
        }
        assertThat(placer.openPools()).as("closing the backend closes the opened pool").isZero();
    }

    @Test
    void aKilledDecodeProcessFailsTheSendTypedAndTheNextHandshakeClosesItsPool() throws Exception {
        PageStore rank0 = filled("prefill rank 0", 8, 6);
        CudaIpcPlacer placer = new CudaIpcPlacer(1);
        try (DecodeServerProcess decode = startDecode();
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", decode.port(), 16, LAYOUT, 1, Duration.ofSeconds(5), null, placer)) {
            long[] d = prefill.open("k", 4, 1).block();
            prefill.send("k", 0, new PageRun(0, d[0], 2), rank0).block();
            decode.kill();
            assertThatThrownBy(() -> prefill.send("k", 0, new PageRun(2, d[2], 2), rank0).block()).isInstanceOf(DecodeUnreachableException.class);
        }
        CudaIpcPlacer next = new CudaIpcPlacer(1);
        try (DecodeServerProcess again = startDecode();
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", again.port(), 16, LAYOUT, 1, Duration.ofSeconds(10), null, next)) {
            long[] e = prefill.open("k2", 2, 1).block();
            prefill.send("k2", 0, new PageRun(0, e[0], 2), rank0).block();
            prefill.complete("k2", 0).block();
            assertThat(prefill.digest("k2", 32).block().ready()).isTrue();
        }
        assertThat(placer.openPools()).isZero();
        assertThat(next.openPools()).isZero();
    }

    private static DecodeServerProcess startDecode() throws IOException {
        return DecodeServerProcess.start(CudaIpcDecodeServerMain.class, "1g", 0, 64, 16, LAYOUT);
    }
}
