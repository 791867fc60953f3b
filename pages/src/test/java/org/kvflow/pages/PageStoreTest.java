package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;

class PageStoreTest {
    /** A toy NSA/MLA layout: latent 16, rope 4, index keys 8 wide, two layers, fp8. */
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("synthetic-toy", ModelKind.TOY_MLA, 2, 16, 4, 8), KvDtype.FP8_E4M3);
    private static final int PS = 2;

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (seed * 31 + i);
        }
        return b;
    }

    @Test
    void pagesCopyEveryLayerAndComponentOnTheirMemory() {
        HeapPageMemory memory = new HeapPageMemory();
        PageStore a = PageStore.allocate(memory, "rank 0", LAYOUT, PS, 3);
        PageStore b = PageStore.allocate(memory, "view", LAYOUT, PS, 2);
        byte[] mla = pattern(a.layers() * a.mlaPageBytes(), 1);
        byte[] index = pattern(a.layers() * a.indexPageBytes(), 2);
        a.writePage(KvComponent.MLA, 2, mla);
        a.writePage(KvComponent.INDEX, 2, index);
        b.copyPagesFrom(a, new long[] {2}, new long[] {1});
        assertThat(b.readPage(KvComponent.MLA, 1)).isEqualTo(mla);
        assertThat(b.readPage(KvComponent.INDEX, 1)).isEqualTo(index);
        assertThat(b.readPage(KvComponent.MLA, 0)).containsOnly(0);
        assertThatThrownBy(() -> b.copyPagesFrom(a, new long[] {0}, new long[] {2})).isInstanceOf(PageOutOfRangeException.class)
                .hasMessage("view: entry 0 names page 2, outside [0, 2)");
    }

    @Test
    void aHostViewWritesThePageInPlaceAndOneComponentCopiesAlone() {
        HeapPageMemory memory = new HeapPageMemory();
        PageStore staging = PageStore.allocateHost(memory, "staging", LAYOUT, PS, 2);
        PageStore rank = PageStore.allocate(memory, "rank 0", LAYOUT, PS, 3);
        byte[] mla = pattern(staging.mlaPageBytes(), 3);
        staging.hostView(1, KvComponent.MLA, 1).put(mla);
        staging.hostView(1, KvComponent.INDEX, 1).put(pattern(staging.indexPageBytes(), 4));
        assertThat(staging.readPage(1, KvComponent.MLA, 1)).as("written through the view").isEqualTo(mla);
        rank.copyPagesFrom(staging, KvComponent.MLA, new long[] {1}, new long[] {2});
        assertThat(rank.readPage(1, KvComponent.MLA, 2)).isEqualTo(mla);
        assertThat(rank.readPage(1, KvComponent.INDEX, 2)).as("the other component stays as it was").containsOnly(0);
        assertThatThrownBy(() -> staging.hostView(0, KvComponent.MLA, 2)).isInstanceOf(PageOutOfRangeException.class);
    }

    /** The heap memory, counting its calls of {@code method} (every overload) in {@code calls}. */
    private static PageMemory counting(String method, java.util.concurrent.atomic.AtomicInteger calls) {
        HeapPageMemory heap = new HeapPageMemory();
        return (PageMemory) java.lang.reflect.Proxy.newProxyInstance(PageMemory.class.getClassLoader(), new Class<?>[] {PageMemory.class},
                (proxy, m, args) -> {
                    if (m.getName().equals(method)) {
                        calls.incrementAndGet();
                    }
                    return m.invoke(heap, args);
                });
    }

    @Test
    void listedPagesReadInListOrderWithOneReadPerRun() {
        java.util.concurrent.atomic.AtomicInteger reads = new java.util.concurrent.atomic.AtomicInteger();
        PageMemory counting = counting("read", reads);
        PageStore store = PageStore.allocate(counting, "view", LAYOUT, PS, 6);
        for (int p = 0; p < 6; p++) {
            store.writePage(KvComponent.MLA, p, pattern(store.layers() * store.mlaPageBytes(), p));
        }
        reads.set(0);
        byte[] got = store.readPages(1, KvComponent.MLA, new long[] {3, 4, 5, 0, 2});
        assertThat(reads).as("runs 3-5, 0, 2").hasValue(3);
        int bytes = store.mlaPageBytes();
        long[] order = {3, 4, 5, 0, 2};
        for (int i = 0; i < order.length; i++) {
            assertThat(Arrays.copyOfRange(got, i * bytes, (i + 1) * bytes)).as("position %d", i)
                    .isEqualTo(store.readPage(1, KvComponent.MLA, order[i]));
        }
        assertThatThrownBy(() -> store.readPages(0, KvComponent.INDEX, new long[] {1, 6})).isInstanceOf(PageOutOfRangeException.class)
                .hasMessage("view: entry 1 names page 6, outside [0, 6)");
    }

    @Test
    void listedPagesWrittenFromListOrderWithOneWritePerRunAfterCheckingEveryPage() {
        java.util.concurrent.atomic.AtomicInteger writes = new java.util.concurrent.atomic.AtomicInteger();
        PageMemory counting = counting("write", writes);
        PageStore store = PageStore.allocate(counting, "view", LAYOUT, PS, 6);
        int bytes = store.mlaPageBytes();
        long[] order = {3, 4, 5, 0, 2};
        byte[] src = pattern(order.length * bytes, 5);
        writes.set(0);
        store.writePages(1, KvComponent.MLA, order, src);
        assertThat(writes).as("runs 3-5, 0, 2").hasValue(3);
        for (int i = 0; i < order.length; i++) {
            assertThat(store.readPage(1, KvComponent.MLA, order[i])).as("position %d", i)
                    .isEqualTo(Arrays.copyOfRange(src, i * bytes, (i + 1) * bytes));
        }
        byte[] before = store.readLayer(0, KvComponent.MLA);
        assertThatThrownBy(() -> store.writePages(0, KvComponent.MLA, new long[] {1, 6}, pattern(2 * bytes, 9)))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("view: entry 1 names page 6, outside [0, 6)");
        assertThatThrownBy(() -> store.writePages(0, KvComponent.MLA, new long[] {1, 2}, pattern(bytes, 9)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("view: " + bytes + " bytes for 2 pages of " + bytes + " bytes");
        assertThat(store.readLayer(0, KvComponent.MLA)).as("nothing of a refused list written").isEqualTo(before);
    }

    @Test
    void aViewGathersFromEveryOwnerInOneBatchAfterCheckingEveryList() {
        HeapPageMemory memory = new HeapPageMemory();
        PageStore a = PageStore.allocate(memory, "rank 0", LAYOUT, PS, 2);
        PageStore b = PageStore.allocate(memory, "rank 1", LAYOUT, PS, 2);
        PageStore elsewhere = PageStore.onHeap("rank 2", LAYOUT, PS, 2);
        byte[] pa = pattern(a.layers() * a.indexPageBytes(), 7);
        byte[] pb = pattern(b.layers() * b.indexPageBytes(), 8);
        byte[] pc = pattern(elsewhere.layers() * elsewhere.indexPageBytes(), 9);
        a.writePage(KvComponent.INDEX, 1, pa);
        b.writePage(KvComponent.INDEX, 0, pb);
        elsewhere.writePage(KvComponent.INDEX, 1, pc);
        PageStore view = PageStore.allocate(memory, "view", LAYOUT, PS, 3);
        view.gatherFrom(List.of(a, b, elsewhere), List.of(new long[] {1}, new long[] {0}, new long[] {1}),
                List.of(new long[] {2}, new long[] {0}, new long[] {1}));
        assertThat(view.readPage(KvComponent.INDEX, 2)).isEqualTo(pa);
        assertThat(view.readPage(KvComponent.INDEX, 0)).isEqualTo(pb);
        assertThat(view.readPage(KvComponent.INDEX, 1)).as("a source in another memory is staged").isEqualTo(pc);
        PageStore fresh = PageStore.allocate(memory, "fresh view", LAYOUT, PS, 3);
        assertThatThrownBy(() -> fresh.gatherFrom(List.of(a, b), List.of(new long[] {1}, new long[] {5}), List.of(new long[] {0}, new long[] {1})))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("rank 1: entry 0 names page 5, outside [0, 2)");
        assertThat(fresh.readPage(KvComponent.INDEX, 0)).as("a bad list in any source moves nothing").containsOnly(0);
        assertThatThrownBy(() -> fresh.gatherFrom(List.of(a, b), List.of(new long[] {1}), List.of(new long[] {0}, new long[] {1})))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("2 sources with 1 source and 2 destination page lists");
    }

    @Test
    void storesInDifferentMemoriesCopyThroughTheHost() {
        PageStore device = PageStore.onHeap("rank 1", LAYOUT, PS, 2);
        PageStore decode = PageStore.allocateHost(new HeapPageMemory(), "decode", LAYOUT, PS, 4);
        assertThat(decode.residency()).as("the heap memory's host staging is the heap").isEqualTo(Residency.HEAP);
        assertThat(device.memory()).isNotSameAs(decode.memory());
        byte[] mla = pattern(device.layers() * device.mlaPageBytes(), 3);
        device.writePage(KvComponent.MLA, 1, mla);
        decode.copyPagesFrom(device, new long[] {1, 0}, new long[] {3, 0});
        assertThat(decode.readPage(KvComponent.MLA, 3)).isEqualTo(mla);
        assertThat(decode.readPage(1, KvComponent.MLA, 3)).isEqualTo(Arrays.copyOfRange(mla, device.mlaPageBytes(), mla.length));
    }

    @Test
    void runsReadIntoAndWriteFromByteBuffers() {
        PageStore store = PageStore.onHeap("rank 0", LAYOUT, PS, 3);
        byte[] page = pattern(store.indexPageBytes(), 6);
        store.writePage(1, KvComponent.INDEX, 2, ByteBuffer.wrap(page));
        ByteBuffer out = ByteBuffer.allocateDirect(2 * store.indexPageBytes());
        store.readPages(1, KvComponent.INDEX, 1, 2, out);
        assertThat(out.position()).isEqualTo(out.capacity());
        byte[] second = new byte[page.length];
        out.get(page.length, second);
        assertThat(second).isEqualTo(page);
        assertThatThrownBy(() -> store.readPages(0, KvComponent.MLA, 2, 2, ByteBuffer.allocate(2 * store.mlaPageBytes())))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("rank 0: entry 1 names page 3, outside [0, 3)");
    }

    @Test
    void mismatchesAndClosedStoresAreRefused() {
        PageStore a = PageStore.onHeap("a", LAYOUT, PS, 2);
        PageStore other = PageStore.onHeap("b", LAYOUT, 4, 2);
        assertThatThrownBy(() -> other.copyPagesFrom(a, new long[] {0}, new long[] {0})).isInstanceOf(IncompatibleStoresException.class)
                .hasMessageStartingWith("cannot copy pages from a (").hasMessageContaining("page size 2) to b (");
        assertThatThrownBy(() -> a.writePage(KvComponent.MLA, 0, new byte[3])).isInstanceOf(ByteRangeException.class)
                .hasMessage("a MLA payload of page 0: bytes [0, 3) lie outside [0, " + 2 * a.mlaPageBytes() + ")");
        a.close();
        a.close();
        assertThatThrownBy(() -> a.readPage(KvComponent.MLA, 0)).isInstanceOf(IllegalStateException.class).hasMessage("a is closed");
    }

    @Test
    void aStoreClosedWithAReasonThrowsThatReasonOnEveryLaterUse() {
        PageStore peer = PageStore.allocate(new HeapPageMemory(), "rank 2 (process 77)", LAYOUT, PS, 2);
        peer.closeWith(() -> new IllegalStateException("rank 2 is lost: its process exited"));
        assertThatThrownBy(() -> peer.readPage(KvComponent.MLA, 0)).isInstanceOf(IllegalStateException.class)
                .hasMessage("rank 2 is lost: its process exited");
        peer.close(); // the first reason stays
        assertThatThrownBy(() -> peer.readPage(0, KvComponent.INDEX, 1)).hasMessage("rank 2 is lost: its process exited");
        PageStore plain = PageStore.allocate(new HeapPageMemory(), "plain", LAYOUT, PS, 2);
        plain.close();
        plain.closeWith(() -> new IllegalArgumentException("later"));
        assertThatThrownBy(() -> plain.readPage(KvComponent.MLA, 0)).isInstanceOf(IllegalStateException.class).hasMessage("plain is closed");
    }

    @Test
    void aHeapMemoryHasNoSharingCapabilityAndEachStoreThatNeedsOneIsRefusedNamingIt() {
        HeapPageMemory heap = new HeapPageMemory();
        assertThat(heap.capability(BufferExport.class)).isEmpty();
        assertThat(heap.capability(BufferImport.class)).isEmpty();
        assertThat(heap.capability(SideBySideViews.class)).isEmpty();
        assertThat(heap.capability(PageMemory.class)).as("a memory is its own capability").contains(heap);
        StoreHandles handles = new StoreHandles(PS, 2, List.of(new byte[8], new byte[8]), List.of(new byte[8], new byte[8]));
        assertThatThrownBy(() -> PageStore.open(heap, "rank 1", LAYOUT, handles)).isInstanceOfSatisfying(MissingCapabilityException.class, e -> {
            assertThat(e.memory()).isEqualTo("java");
            assertThat(e.capability()).isEqualTo(BufferImport.class);
        }).hasMessage("the java page memory opens no buffer of another process");
        PageStore pool = PageStore.allocateShared(heap, "pool", LAYOUT, PS, 2);
        assertThat(pool.residency()).as("shared where it can be, an ordinary store where not").isEqualTo(Residency.HEAP);
        assertThatThrownBy(pool::exportHandles).isInstanceOfSatisfying(MissingCapabilityException.class,
                e -> assertThat(e.capability()).isEqualTo(BufferExport.class)).hasMessage("the java page memory shares no buffer with other processes");
        assertThatThrownBy(() -> PageStore.openSideBySide(heap, "view", LAYOUT, List.of(handles, handles)))
                .isInstanceOfSatisfying(MissingCapabilityException.class, e -> assertThat(e.capability()).isEqualTo(SideBySideViews.class))
                .hasMessage("the java page memory maps no buffers of other processes side by side");
    }

    @Test
    void aLayoutWithoutAnIndexerHasNoStore() {
        KvLayout plainMla = new KvLayout(new ModelShape("mla", ModelKind.MLA, 2, 16, 4, 0), KvDtype.FP8_E4M3);
        assertThatThrownBy(() -> PageStore.onHeap("rank 0", plainMla, PS, 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a KV page store holds NSA MLA layouts (latent + indexer), not mla");
    }

    @Test
    void rowsAreWrittenOnlyWhereTheStoreHasThemAndNothingMovesOtherwise() {
        PageStore store = PageStore.allocate(new HeapPageMemory(), "rank 1", LAYOUT, PS, 3); // rows [0, 6)
        int rowBytes = LAYOUT.mlaRowBytes();
        byte[] two = pattern(2 * rowBytes, 4);
        store.writeMlaRows(1, 4, two, 0, 2); // the last two rows, exactly to the end
        assertThat(store.readPage(1, KvComponent.MLA, 2)).isEqualTo(two);
        store.writeMlaRows(0, 0, two, rowBytes, 1); // the first row, one of them
        assertThat(Arrays.copyOf(store.readPage(0, KvComponent.MLA, 0), rowBytes)).isEqualTo(Arrays.copyOfRange(two, rowBytes, 2 * rowBytes));
        byte[] before = store.readLayer(1, KvComponent.MLA);
        assertThatThrownBy(() -> store.writeMlaRows(1, -1, two, 0, 1)).isInstanceOf(RowOutOfRangeException.class)
                .hasMessage("rank 1: row -1 lies outside [0, 6)");
        assertThatThrownBy(() -> store.writeMlaRows(1, 6, two, 0, 1)).hasMessage("rank 1: row 6 lies outside [0, 6)");
        assertThatThrownBy(() -> store.writeMlaRows(1, 5, two, 0, 2)).hasMessage("rank 1: row 6 lies outside [0, 6)");
        assertThatThrownBy(() -> store.writeMlaRows(1, 3, two, 0, 0)).as("no rows is no write").isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rank 1: a row write needs at least one row, count was 0");
        assertThatThrownBy(() -> store.writeMlaRows(1, 3, two, 0, -2)).hasMessage("rank 1: a row write needs at least one row, count was -2");
        assertThat(store.readLayer(1, KvComponent.MLA)).as("a refused write moves nothing").isEqualTo(before);
    }

    @Test
    void indexRowsStayWithinOnePage() {
        PageStore store = PageStore.allocate(new HeapPageMemory(), "rank 2", LAYOUT, PS, 3);
        int dim = LAYOUT.shape().indexDim();
        byte[] codes = pattern(2 * dim, 5);
        float[] scales = {0.5f, 0.25f};
        store.writeIndexRows(0, 2, codes, 0, scales, 0, 2); // rows 2 and 3: page 1 whole
        assertThat(Arrays.copyOf(store.readPage(0, KvComponent.INDEX, 1), 2 * dim)).isEqualTo(codes);
        byte[] before = store.readLayer(0, KvComponent.INDEX);
        assertThatThrownBy(() -> store.writeIndexRows(0, 3, codes, 0, scales, 0, 2)).isInstanceOf(RowOutOfRangeException.class)
                .hasMessage("rank 2: row 4 lies outside [0, 4)");
        assertThat(store.readLayer(0, KvComponent.INDEX)).isEqualTo(before);
    }

    @Test
    void indexRowsLandAtTheirSlotWithTheirScalesInThePagesScaleRegion() {
        PageStore store = PageStore.allocate(new HeapPageMemory(), "rank 3", LAYOUT, PS, 3);
        int dim = LAYOUT.shape().indexDim();
        int blocks = KvLayout.tiles(dim);
        assertThat(store.pageBytes(KvComponent.INDEX)).as("a page: its codes, then one scale a row and block").isEqualTo(PS * dim + PS * blocks * 4);
        byte[] codes = pattern(3 * dim, 9);
        float[] scales = {7f, 0.125f, -3.5f};
        store.writeIndexRows(1, 5, codes, 2 * dim, scales, 2, 1); // row 5: page 2, slot 1, from the third row of each input
        ByteBuffer page = ByteBuffer.wrap(store.readPage(1, KvComponent.INDEX, 2)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        byte[] slot1 = new byte[dim];
        page.get(dim, slot1);
        assertThat(slot1).isEqualTo(Arrays.copyOfRange(codes, 2 * dim, 3 * dim));
        byte[] slot0 = new byte[dim];
        page.get(0, slot0);
        assertThat(slot0).as("slot 0 untouched").containsOnly(0);
        assertThat(page.getFloat(PS * dim)).as("slot 0's scale untouched").isZero();
        assertThat(page.getFloat(PS * dim + blocks * 4)).isEqualTo(-3.5f);
        assertThat(store.readPage(0, KvComponent.INDEX, 2)).as("the other layer untouched").containsOnly(0);
        assertThat(store.readPage(1, KvComponent.INDEX, 1)).as("the page before untouched").containsOnly(0);

        store.writeIndexRows(1, 0, codes, dim, scales, 1, 2); // rows 0 and 1: page 0 whole, from the second row on
        ByteBuffer first = ByteBuffer.wrap(store.readPage(1, KvComponent.INDEX, 0)).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        byte[] both = new byte[2 * dim];
        first.get(0, both);
        assertThat(both).isEqualTo(Arrays.copyOfRange(codes, dim, 3 * dim));
        assertThat(first.getFloat(PS * dim)).isEqualTo(0.125f);
        assertThat(first.getFloat(PS * dim + blocks * 4)).isEqualTo(-3.5f);
    }
}
