package org.kvflow.kernels.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.api.Devices;
import org.kvflow.pages.PageOutOfRangeException;
import org.kvflow.kernels.nsa.IndexScorer;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SparseAttention;
import org.kvflow.kernels.nsa.KeyFloats;
import org.kvflow.kernels.nsa.RowEncoder;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.IncompatibleStoresException;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.RowOutOfRangeException;
import org.kvflow.pages.StoreHandles;
import org.kvflow.pages.MissingCapabilityException;

/**
 * The in-place row operations refuse bad calls before anything moves, naming the entry, and say
 * plainly where a memory or device has no device arrays (the heap and the java device here; the
 * GPU tests run them on the cuda memory).
 */
class InPlaceRowsContractTest {
    private static final NsaDims TOY = new NsaDims(8, 16, 4, 8, 4);
    private static final KvLayout LAYOUT = TOY.layout(KvDtype.FP8_E4M3, 2);
    private static final int PS = 2;
    private static final Device GPU = new Device("cuda", 0, "a GPU", Device.Kind.GPU);

    private static DeviceRegion region(long bytes) {
        return new DeviceRegion(GPU, 1L << 20, bytes);
    }

    private static DeviceRows rows(int count, long bytes) {
        return new DeviceRows(count, region(bytes), region(bytes), region(bytes), region(bytes), region(bytes), region(bytes));
    }

    @Test
    void storeRowsNamesTheBadEntry() {
        HeapPageMemory memory = new HeapPageMemory();
        PageStore a = PageStore.allocate(memory, "rank 0", LAYOUT, PS, 3);
        PageStore b = PageStore.allocate(memory, "rank 1", LAYOUT, PS, 3);
        RowWrites writes = new RowWrites().add(0, 0, 5).add(4, 1, 0);
        assertThatThrownBy(() -> StoreRows.store(List.of(a, b), 0, rows(4, 1 << 20), writes))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("row write 1: token 4 outside the 4 computed rows");
        RowWrites badStore = new RowWrites().add(0, 2, 0);
        assertThatThrownBy(() -> StoreRows.store(List.of(a, b), 0, rows(4, 1 << 20), badStore))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("row write 0: store 2 outside the 2 stores");
        RowWrites badRow = new RowWrites().add(3, 1, 6);
        assertThatThrownBy(() -> StoreRows.store(List.of(a, b), 0, rows(4, 1 << 20), badRow))
                .isInstanceOf(RowOutOfRangeException.class).hasMessage("rank 1: row 6 lies outside [0, 6)");
        assertThatThrownBy(() -> StoreRows.store(List.of(a, b), 0, rows(4, 63), writes))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("latent codes: the device region holds 63 bytes; 64 are needed");
        PageStore other = PageStore.allocate(memory, "bf16 rank", TOY.layout(KvDtype.BF16, 2), PS, 3);
        assertThatThrownBy(() -> StoreRows.store(List.of(a, other), 0, rows(4, 1 << 20), writes))
                .isInstanceOf(IncompatibleStoresException.class);
        assertThatThrownBy(() -> StoreRows.store(List.of(a, b), 0, rows(4, 1 << 20), new RowWrites().add(3, 1, 5)))
                .isInstanceOf(ForeignRegionException.class)
                .hasMessage("the computed rows: on cuda:0, which the java page memory does not reach");
        assertThat(a.readLayer(0, KvComponent.MLA)).as("nothing was stored").containsOnly(0);
    }

    @Test
    void keyReadsNameTheBadPositionOrPage() {
        PageStore view = PageStore.allocate(new HeapPageMemory(), "view", LAYOUT, PS, 4);
        assertThatThrownBy(() -> StoreRows.readIndexKeys(view, 0, new long[] {0, 1}, 5, region(1 << 20), region(1 << 20)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("view: 5 keys from 2 pages of 2 tokens");
        assertThatThrownBy(() -> StoreRows.readIndexKeys(view, 0, new long[] {0, 4}, 4, region(1 << 20), region(1 << 20)))
                .isInstanceOf(PageOutOfRangeException.class).hasMessage("view: entry 1 names page 4, outside [0, 4)");
        assertThatThrownBy(() -> StoreRows.readIndexKeys(view, 0, new long[] {0, 1}, 4, region(31), region(1 << 20)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("index key codes: the device region holds 31 bytes; 32 are needed");
        assertThatThrownBy(() -> StoreRows.readKeyRows(view, 0, new long[] {3}, new long[] {1, 2}, region(1 << 20)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("view: key 1 names position 2, outside the 2 rows of its 1 pages");
        assertThatThrownBy(() -> StoreRows.readKeyRows(view, 0, new long[] {3}, new long[] {1}, region(79)))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("key rows: the device region holds 79 bytes; 80 are needed");
        assertThatThrownBy(() -> StoreRows.readKeyRows(view, 0, new long[] {3}, new long[] {1}, region(80)))
                .isInstanceOf(ForeignRegionException.class).hasMessage("the key rows: on cuda:0, which the java page memory does not reach");
        assertThat(StoreRows.reaches(view, Devices.java())).isFalse();
    }

    @Test
    void theJavaDeviceHasNoDeviceArraysToFillInPlace() {
        try (RowEncoder rows = new RowEncoder(LAYOUT, Devices.java());
             IndexScorer scorer = new IndexScorer(TOY.index(), Devices.java());
             SparseAttention attention = new SparseAttention(TOY.latent() + TOY.rope(), TOY.latent(), Devices.java())) {
            assertThatThrownBy(() -> rows.onDevice(new KeyFloats(1, new float[TOY.latent()], new float[TOY.rope()], new float[TOY.index()]))).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("the rows computed on java (Java reference");
            assertThatThrownBy(() -> scorer.topK(new float[TOY.index()], 1, (codes, scales) -> { }, new int[] {1}, 1))
                    .isInstanceOf(IllegalStateException.class).hasMessageEndingWith("are not in device memory");
            assertThatThrownBy(() -> attention.attend(new float[TOY.latent() + TOY.rope()], 1, out -> { }))
                    .isInstanceOf(IllegalStateException.class).hasMessageEndingWith("are not in device memory");
        }
    }

    @Test
    void storesOpenedSideBySideMustAgreeAndRegionsAndHandlesAreChecked() {
        StoreHandles six = new StoreHandles(PS, 6, java.util.Collections.nCopies(2, new byte[24]), java.util.Collections.nCopies(2, new byte[24]));
        StoreHandles five = new StoreHandles(PS, 5, java.util.Collections.nCopies(2, new byte[24]), java.util.Collections.nCopies(2, new byte[24]));
        assertThatThrownBy(() -> PageStore.openSideBySide(new HeapPageMemory(), "view", LAYOUT, List.of(six, five)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("view: store 1 has 5 pages of 2 tokens and 2 layers; store 0 has 6 of 2 and the layout 2");
        assertThatThrownBy(() -> PageStore.openSideBySide(new HeapPageMemory(), "view", LAYOUT, List.of(six, six)))
                .isInstanceOf(MissingCapabilityException.class)
                .hasMessage("the java page memory maps no buffers of other processes side by side");
        assertThatThrownBy(() -> new StoreHandles(PS, 6, List.of(new byte[24]), List.of())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("store handles of page size 2, 6 pages, 1 MLA and 0 indexer handles");
        assertThatThrownBy(() -> new DeviceRegion(GPU, 0, 16)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("device region at 0 of 16 bytes on cuda:0 (a GPU)");
        assertThatThrownBy(() -> PageStore.allocate(new HeapPageMemory(), "pool", LAYOUT, PS, 2).exportHandles())
                .isInstanceOf(MissingCapabilityException.class).hasMessage("the java page memory shares no buffer with other processes");
    }
}
