package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.pages.PageOutOfRangeException;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.NotHostMemoryException;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.Residency;

/**
 * On the GPU machine: a {@link PageStore} whose pages live in device memory does what the heap
 * store does, byte for byte: row writes, page payloads, runs into direct buffers, checksums, page
 * copies on the device and copies between device and heap stores. Bad pages move nothing.
 */
@Tag("cuda")
class CudaPageStoreGpuTest {
    /** Three layers: six buffers per store, so page copies go through the one-launch table path. */
    private static final KvLayout LAYOUT = NsaDims.REAL.layout(KvDtype.FP8_E4M3, 3);
    private static final int PS = 64;
    private static CudaPageMemory cuda;

    @BeforeAll
    static void open() {
        cuda = new CudaPageMemory(0);
    }

    @AfterAll
    static void close() {
        cuda.close();
    }

    private static byte[] random(long seed, int bytes) {
        byte[] b = new byte[bytes];
        new SplittableRandom(seed).nextBytes(b);
        return b;
    }

    /** The same writes on a device store and a heap store. */
    private static void fill(PageStore store, int pages) {
        int dim = LAYOUT.shape().indexDim();
        float[] scales = new float[KvLayout.tiles(dim)];
        for (long row = 0; row < (long) pages * PS; row += 7) {
            for (int l = 0; l < store.layers(); l++) {
                store.writeMlaRows(l, row, random(row * 31 + l, LAYOUT.mlaRowBytes()), 0, 1);
                java.util.Arrays.fill(scales, row / 7f + l);
                store.writeIndexRows(l, row, random(row * 17 + l, dim), 0, scales, 0, 1);
            }
        }
        store.writePage(KvComponent.MLA, pages - 1, random(99, store.layers() * store.mlaPageBytes()));
    }

    @Test
    void aDeviceStoreHoldsTheSameBytesAsAHeapStore() {
        int pages = 12;
        try (PageStore device = PageStore.allocate(cuda, "rank 3", LAYOUT, PS, pages);
             PageStore heap = PageStore.onHeap("rank 3 on heap", LAYOUT, PS, pages)) {
            assertThat(device.residency()).isEqualTo(Residency.DEVICE);
            fill(device, pages);
            fill(heap, pages);
            for (KvComponent c : KvComponent.values()) {
                for (int l = 0; l < device.layers(); l++) {
                    assertThat(device.readLayer(l, c)).as("%s layer %d", c, l).isEqualTo(heap.readLayer(l, c));
                }
                for (long p = 0; p < pages; p++) {
                    assertThat(device.readPage(c, p)).isEqualTo(heap.readPage(c, p));
                }
            }
            ByteBuffer direct = ByteBuffer.allocateDirect(3 * device.mlaPageBytes());
            device.readPages(1, KvComponent.MLA, 4, 3, direct);
            byte[] got = new byte[direct.capacity()];
            direct.flip().get(got);
            assertThat(got).isEqualTo(heap.readBytes(1, KvComponent.MLA, 4L * heap.mlaPageBytes(), got.length));
            CRC32C a = new CRC32C();
            CRC32C b = new CRC32C();
            device.checksum(0, KvComponent.INDEX, 100, 5000, a);
            heap.checksum(0, KvComponent.INDEX, 100, 5000, b);
            assertThat(a.getValue()).isEqualTo(b.getValue());
        }
    }

    @Test
    void pagesCopyOnTheDeviceAndBetweenDeviceAndHeap() {
        int pages = 16;
        try (PageStore owner = PageStore.allocate(cuda, "owner", LAYOUT, PS, pages);
             PageStore view = PageStore.allocate(cuda, "full view", LAYOUT, PS, 4);
             PageStore pinned = PageStore.allocateHost(cuda, "pinned staging", LAYOUT, PS, 4);
             PageStore decode = PageStore.onHeap("decode", LAYOUT, PS, 8)) {
            assertThat(pinned.residency()).isEqualTo(Residency.PINNED_HOST);
            fill(owner, pages);
            long[] gathered = {15, 2, 9, 4};
            view.copyPagesFrom(owner, gathered, new long[] {0, 1, 2, 3});
            pinned.copyPagesFrom(view, new long[] {0, 1, 2, 3}, new long[] {3, 2, 1, 0});
            assertThat(pinned.readPage(KvComponent.INDEX, 3)).as("device -> pinned host in the same memory").isEqualTo(owner.readPage(KvComponent.INDEX, 15));
            decode.copyPagesFrom(view, new long[] {3, 0}, new long[] {7, 1});
            for (KvComponent c : KvComponent.values()) {
                for (int k = 0; k < gathered.length; k++) {
                    assertThat(view.readPage(c, k)).as("%s view page %d", c, k).isEqualTo(owner.readPage(c, gathered[k]));
                }
                assertThat(decode.readPage(c, 7)).isEqualTo(owner.readPage(c, 4));
                assertThat(decode.readPage(c, 1)).isEqualTo(owner.readPage(c, 15));
            }
            byte[] before = view.readPage(KvComponent.MLA, 0);
            assertThatThrownBy(() -> view.copyPagesFrom(owner, new long[] {1, 16}, new long[] {0, 1}))
                    .isInstanceOf(PageOutOfRangeException.class).hasMessage("owner: entry 1 names page 16, outside [0, 16)");
            assertThat(view.readPage(KvComponent.MLA, 0)).as("a refused copy moves nothing").isEqualTo(before);
        }
        assertThat(cuda.liveBuffers()).as("closed stores gave their device memory back").isZero();
    }

    @Test
    void pinnedStagingIsWrittenInPlaceAndDeviceStoresHaveNoHostView() {
        try (PageStore pinned = PageStore.allocateHost(cuda, "restore staging", LAYOUT, PS, 2);
             PageStore rank = PageStore.allocate(cuda, "rank 3", LAYOUT, PS, 4)) {
            byte[] index = random(5, pinned.indexPageBytes());
            pinned.hostView(2, KvComponent.INDEX, 1).put(index);
            rank.copyPagesFrom(pinned, KvComponent.INDEX, new long[] {1}, new long[] {3});
            assertThat(rank.readPage(2, KvComponent.INDEX, 3)).isEqualTo(index);
            assertThat(rank.readPage(2, KvComponent.MLA, 3)).as("only the index pool was copied").containsOnly(0);
            assertThatThrownBy(() -> rank.hostView(0, KvComponent.MLA, 0)).isInstanceOf(NotHostMemoryException.class)
                    .hasMessage("rank 3 mla layer 0 lies in device memory: only heap and pinned host buffers can be written in place from the host");
        }
    }

    /** The copy table stays on the device between gathers: changed lists, even in the same arrays, and other copies in between still give the right pages. */
    @Test
    void aGatherAfterTheSameOrChangedListsOrOtherCopiesMovesTheListedPages() {
        int pages = 12;
        try (PageStore a = PageStore.allocate(cuda, "owner a", LAYOUT, PS, pages);
             PageStore b = PageStore.allocate(cuda, "owner b", LAYOUT, PS, pages);
             PageStore view = PageStore.allocate(cuda, "view", LAYOUT, PS, 4)) {
            fill(a, pages);
            b.copyPagesFrom(a, new long[] {11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, new long[] {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
            long[] fromA = {3, 7};
            long[] fromB = {0, 5};
            long[] toA = {0, 1};
            long[] toB = {2, 3};
            for (int round = 0; round < 4; round++) {
                if (round == 2) {
                    fromA[0] = 9; // same arrays, new contents
                    fromB[1] = 1;
                }
                if (round == 3) { // a plain page copy sends its own lists through the device scratch the table lives in
                    org.kvflow.pages.PageBuffer x = cuda.allocate("x", 64, 16);
                    org.kvflow.pages.PageBuffer y = cuda.allocate("y", 64, 16);
                    cuda.copyPages(x, java.util.stream.LongStream.range(0, 64).toArray(), y, java.util.stream.LongStream.range(0, 64).toArray());
                    cuda.free(x);
                    cuda.free(y);
                }
                view.gatherFrom(java.util.List.of(a, b), java.util.List.of(fromA, fromB), java.util.List.of(toA, toB));
                for (KvComponent c : KvComponent.values()) {
                    for (int k = 0; k < 2; k++) {
                        assertThat(view.readPage(c, toA[k])).as("round %d %s from a", round, c).isEqualTo(a.readPage(c, fromA[k]));
                        assertThat(view.readPage(c, toB[k])).as("round %d %s from b", round, c).isEqualTo(b.readPage(c, fromB[k]));
                    }
                }
            }
        }
    }
    @Test
    void aTableSentBeforeIsNotCheckedAgainButListsChangedInPlaceAre() {
        org.kvflow.pages.PageBuffer x = cuda.allocate("x", 4, 16);
        org.kvflow.pages.PageBuffer y = cuda.allocate("y", 4, 16);
        try {
            cuda.write(x, 0, random(5, 64), 0, 64);
            long[] src = {0, 1};
            long[] dst = {2, 3};
            java.util.List<org.kvflow.pages.PageCopy> batch = java.util.List.of(new org.kvflow.pages.PageCopy(x, src, y, dst));
            cuda.copyPages(batch);
            cuda.copyPages(batch); // the same table: sent already, checked then
            src[1] = 4;
            assertThatThrownBy(() -> cuda.copyPages(batch)).isInstanceOf(PageOutOfRangeException.class)
                    .hasMessage("x: entry 1 names page 4, outside [0, 4)");
            src[1] = 3;
            cuda.copyPages(batch);
            byte[] got = new byte[64];
            cuda.read(y, 0, 64, got, 0);
            byte[] sent = random(5, 64);
            assertThat(java.util.Arrays.copyOfRange(got, 32, 48)).isEqualTo(java.util.Arrays.copyOfRange(sent, 0, 16));
            assertThat(java.util.Arrays.copyOfRange(got, 48, 64)).isEqualTo(java.util.Arrays.copyOfRange(sent, 48, 64));
        } finally {
            cuda.free(x);
            cuda.free(y);
        }
    }

}
