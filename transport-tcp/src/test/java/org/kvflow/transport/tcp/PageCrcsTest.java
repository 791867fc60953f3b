package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.decode.TransferRejectedException;
import org.kvflow.pages.ChecksummingMemory;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.RandomPages;
import org.kvflow.transfer.PageRun;

/** A run's page checksums from a memory that checksums ranges in place equal the page-by-page ones, and a decode pool in such a memory checks PLACED runs with them. */
class PageCrcsTest {
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("synthetic-toy", ModelKind.TOY_MLA, 3, 40, 8, 24), KvDtype.FP8_E4M3);

    @Test
    void aRunsChecksumsInOneInPlaceCallEqualThePageByPageOnes() {
        ChecksummingMemory memory = new ChecksummingMemory();
        PageStore inPlace = RandomPages.fill(PageStore.allocate(memory, "decode", LAYOUT, 16, 12), 5);
        PageStore heap = RandomPages.fill(PageStore.onHeap("decode", LAYOUT, 16, 12), 5);
        long[] pages = {11, 0, 3, 4, 9};
        int[] joined = PageCrcs.of(inPlace, pages);
        assertThat(memory.calls()).as("one call for the run").isEqualTo(1);
        assertThat(memory.ranges()).as("a range per page, layer and pool").isEqualTo(pages.length * LAYOUT.shape().layers() * 2);
        for (int k = 0; k < pages.length; k++) {
            assertThat(joined[k]).as("page %d", pages[k]).isEqualTo(PageCrcs.of(heap, pages[k])).isEqualTo(PageCrcs.of(inPlace, pages[k]));
        }
        assertThat(PageCrcs.of(heap, pages)).isEqualTo(joined);
    }

    @Test
    void aCheckedBatchOverTheStoresBuffersGivesEachPagesProtocolChecksum() {
        ChecksummingMemory memory = new ChecksummingMemory();
        PageStore rank = RandomPages.fill(PageStore.allocate(memory, "rank", LAYOUT, 16, 12), 3);
        PageStore decode = PageStore.allocate(memory, "decode", LAYOUT, 16, 12);
        long[] src = {7, 2, 11};
        long[] dst = {0, 5, 1};
        List<PageBuffer> from = PageCrcs.buffers(rank);
        List<PageBuffer> to = PageCrcs.buffers(decode);
        assertThat(from).hasSize(2 * LAYOUT.shape().layers()).startsWith(rank.buffer(0, KvComponent.MLA)).endsWith(rank.buffer(2, KvComponent.INDEX));
        List<PageCopy> batch = new java.util.ArrayList<>();
        for (int b = 0; b < from.size(); b++) {
            batch.add(new PageCopy(from.get(b), src, to.get(b), dst));
        }
        int[] joined = memory.copyPagesChecked(batch);
        for (int k = 0; k < src.length; k++) {
            assertThat(joined[k]).as("page %d", src[k]).isEqualTo(PageCrcs.of(rank, src[k])).isEqualTo(PageCrcs.of(decode, dst[k]));
        }
    }

    @Test
    void aDecodePoolThatChecksInPlaceCountsGoodRunsAndRefusesABadOneInOneCallEach() {
        ChecksummingMemory memory = new ChecksummingMemory();
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT, memory);
        InProcessPlacement landing = new InProcessPlacement(receiver);
        PageStore rank0 = RandomPages.fill(PageStore.onHeap("prefill rank", LAYOUT, 16, 8), 9);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null, landing);
             TcpTransferBackend good = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, Duration.ofSeconds(5), null, landing.placer(false));
             TcpTransferBackend bad = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, Duration.ofSeconds(5), null, landing.placer(true))) {
            long[] d = good.open("ok", 3, 1).block();
            good.send("ok", 0, new PageRun(2, d[0], 3), rank0).block();
            good.complete("ok", 0).block();
            assertThat(receiver.isReady("ok")).isTrue();
            assertThat(memory.calls()).as("the run was checked in one call on the pool's memory").isEqualTo(1);
            long[] e = bad.open("bad", 2, 1).block();
            int landed = PageCrcs.of(rank0, 0);
            assertThatThrownBy(() -> bad.send("bad", 0, new PageRun(0, e[0], 2), rank0).block()).isInstanceOf(TransferRejectedException.class)
                    .hasMessage("transfer of request bad rejected: E-PD-CRC: request bad: page " + e[0] + " landed with crc32c " + Integer.toHexString(landed)
                            + ", placed as " + Integer.toHexString(landed ^ 1));
            assertThat(memory.calls()).isEqualTo(2);
            assertThat(server.rejectedPages()).isEqualTo(2);
        }
    }
}
