package org.kvflow.kernels.rows;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.pages.IncompatibleStoresException;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageStore;

/**
 * Rows between page stores and kernel arrays in place on the device, through the stores' memory's
 * {@link DeviceRowAccess}: computed rows stored into the owners' pages, index keys and key rows read
 * out of a view. Every argument is checked before anything moves, and a store whose memory does
 * not reach the arrays' device is refused.
 */
public final class StoreRows {
    private StoreRows() {}

    /** Whether {@code store}'s memory reads and fills the arrays of kernel device {@code device} in place. */
    public static boolean reaches(PageStore store, Device device) {
        return access(store).map(a -> a.reaches(device)).orElse(false);
    }

    /**
     * Stores computed rows into {@code stores} in place on the device, for {@code layer}: each
     * entry of {@code writes} puts a token's MLA row and index key into a row of one store, the
     * same bytes as {@link PageStore#writeMlaRows} and {@link PageStore#writeIndexRows} store from
     * the heap. One launch; nothing crosses the host. Every entry is checked first.
     *
     * @throws IncompatibleStoresException if the stores differ in memory, layout or page size
     * @throws ForeignRegionException if the rows lie on a device the stores' memory does not reach
     * @throws IllegalArgumentException naming an entry whose token or store does not exist, or a region too small
     * @throws org.kvflow.pages.RowOutOfRangeException naming an entry whose row lies outside its store
     */
    public static void store(List<PageStore> stores, int layer, DeviceRows rows, RowWrites writes) {
        PageStore first = stores.getFirst();
        for (PageStore s : stores) {
            if (s.memory() != first.memory() || !s.layout().equals(first.layout()) || s.pageSize() != first.pageSize()) {
                throw new IncompatibleStoresException(s, first);
            }
        }
        RowGeometry g = RowGeometry.of(first.layout(), first.pageSize());
        rows.requireFits(g);
        for (int i = 0; i < writes.size(); i++) {
            if (writes.token(i) < 0 || writes.token(i) >= rows.count()) {
                throw new IllegalArgumentException("row write " + i + ": token " + writes.token(i) + " outside the " + rows.count() + " computed rows");
            }
            if (writes.store(i) < 0 || writes.store(i) >= stores.size()) {
                throw new IllegalArgumentException("row write " + i + ": store " + writes.store(i) + " outside the " + stores.size() + " stores");
            }
            stores.get(writes.store(i)).checkRows(writes.row(i), 1);
        }
        DeviceRowAccess access = reached(first, "the computed rows", rows.indexCodes().device());
        if (writes.size() == 0) {
            return;
        }
        List<PageBuffer> mla = new ArrayList<>();
        List<PageBuffer> index = new ArrayList<>();
        for (PageStore s : stores) {
            mla.add(s.buffer(layer, KvComponent.MLA));
            index.add(s.buffer(layer, KvComponent.INDEX));
        }
        access.storeRows(rows, g, mla, index, writes.table(), writes.size());
    }

    /**
     * The index keys of a request's positions {@code 0 .. keys-1} into device arrays, in place:
     * key {@code j} lies at slot {@code j % ps} of page {@code pages[j / ps]} of {@code layer};
     * its fp8 codes go to {@code codes[j·I ..]}, its scales to {@code scales[j·⌈I/128⌉ ..]}.
     *
     * @throws ForeignRegionException if a region lies on a device the store's memory does not reach
     * @throws IllegalArgumentException if {@code pages} holds fewer than {@code keys} rows or a region is too small
     * @throws org.kvflow.pages.PageOutOfRangeException naming the first page outside the store
     */
    public static void readIndexKeys(PageStore store, int layer, long[] pages, int keys, DeviceRegion codes, DeviceRegion scales) {
        RowGeometry g = RowGeometry.of(store.layout(), store.pageSize());
        if (keys < 0 || (long) keys > (long) pages.length * store.pageSize()) {
            throw new IllegalArgumentException(store.label() + ": " + keys + " keys from " + pages.length + " pages of " + store.pageSize() + " tokens");
        }
        codes.requireBytes("index key codes", (long) keys * g.index());
        scales.requireBytes("index key scales", (long) keys * g.indexBlocks() * Float.BYTES);
        store.checkPages(pages);
        DeviceRowAccess access = reached(store, "the index key codes", codes.device());
        reached(store, "the index key scales", scales.device());
        if (keys > 0) {
            access.readIndexKeys(store.buffer(layer, KvComponent.INDEX), pages, keys, g, codes, scales);
        }
    }

    /**
     * The dequantised MLA keys ({@code C + R} floats, as {@code MlaRows.decodeKey} gives them) of
     * a request's {@code positions} into a device array, in place: row {@code i} is position
     * {@code positions[i]}, which lies at slot {@code j % ps} of page {@code pages[j / ps]} of {@code layer}.
     *
     * @throws ForeignRegionException if the region lies on a device the store's memory does not reach
     * @throws IllegalArgumentException naming a position outside the pages, or if the region is too small
     * @throws org.kvflow.pages.PageOutOfRangeException naming the first page outside the store
     */
    public static void readKeyRows(PageStore store, int layer, long[] pages, long[] positions, DeviceRegion out) {
        RowGeometry g = RowGeometry.of(store.layout(), store.pageSize());
        long rows = (long) pages.length * store.pageSize();
        for (int i = 0; i < positions.length; i++) {
            if (positions[i] < 0 || positions[i] >= rows) {
                throw new IllegalArgumentException(store.label() + ": key " + i + " names position " + positions[i] + ", outside the "
                        + rows + " rows of its " + pages.length + " pages");
            }
        }
        out.requireBytes("key rows", (long) positions.length * (g.latent() + g.rope()) * Float.BYTES);
        store.checkPages(pages);
        DeviceRowAccess access = reached(store, "the key rows", out.device());
        if (positions.length > 0) {
            access.readKeyRows(store.buffer(layer, KvComponent.MLA), pages, positions, g, out);
        }
    }

    private static Optional<DeviceRowAccess> access(PageStore store) {
        return store.memory().capability(DeviceRowAccess.class);
    }

    /** @throws ForeignRegionException naming {@code what} if {@code store}'s memory does not reach {@code device} */
    private static DeviceRowAccess reached(PageStore store, String what, Device device) {
        return access(store).filter(a -> a.reaches(device))
                .orElseThrow(() -> new ForeignRegionException(what, device, store.memory().name()));
    }
}
