package org.kvflow.model;

import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.kernels.rows.StoreRows;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;

/**
 * One layer's keys of one request in a view's page store: key {@code j} lies in page
 * {@code pages[j / ps]}, row {@code j % ps}. In place through {@link StoreRows} where the store's
 * memory reaches the device; otherwise the pages are read to the heap once and decoded there.
 */
public final class StoreLayerView implements LayerView {
    private final PageStore store;
    private final int layer;
    private final long[] pages;
    private final int keyCount;
    private final boolean inPlace;
    private byte @Nullable [] codes;
    private float @Nullable [] scales;
    private float @Nullable [] rows;

    /**
     * The keys {@code 0..keyCount-1} of {@code layer} in {@code store}'s {@code pages}.
     *
     * @param store    the view's page store
     * @param layer    the layer
     * @param pages    the store's pages holding the keys, in position order
     * @param keyCount how many keys
     * @param device   the consumer's device (whether reading in place is possible)
     */
    public StoreLayerView(PageStore store, int layer, long[] pages, int keyCount, Device device) {
        this.store = store;
        this.layer = layer;
        this.pages = pages;
        this.keyCount = keyCount;
        this.inPlace = StoreRows.reaches(store, device);
    }

    @Override
    public int keyCount() {
        return keyCount;
    }

    @Override
    public boolean inPlace() {
        return inPlace;
    }

    @Override
    public void readIndexKeys(DeviceRegion codesOut, DeviceRegion scalesOut) {
        StoreRows.readIndexKeys(store, layer, pages, keyCount, codesOut, scalesOut);
    }

    @Override
    public void readKeyRows(long[] positions, DeviceRegion out) {
        StoreRows.readKeyRows(store, layer, pages, positions, out);
    }

    @Override
    public byte[] indexCodes() {
        if (codes == null) {
            readIndexToHeap();
        }
        return codes;
    }

    @Override
    public float[] indexScales() {
        if (scales == null) {
            readIndexToHeap();
        }
        return scales;
    }

    @Override
    public float[] keyRows() {
        if (rows == null) {
            KvLayout layout = store.layout();
            int width = layout.shape().latentDim() + layout.shape().ropeDim();
            byte[] mla = store.readPages(layer, KvComponent.MLA, pages);
            float[] row = new float[width];
            float[] all = new float[keyCount * width];
            for (int j = 0; j < keyCount; j++) {
                MlaRows.decodeKey(mla, j * layout.mlaRowBytes(), layout, row);
                System.arraycopy(row, 0, all, j * width, width);
            }
            rows = all;
        }
        return rows;
    }

    private void readIndexToHeap() {
        int ps = store.pageSize();
        int dimI = store.layout().shape().indexDim();
        int blocks = KvLayout.tiles(dimI);
        byte[] index = store.readPages(layer, KvComponent.INDEX, pages);
        byte[] c = new byte[keyCount * dimI];
        float[] s = new float[keyCount * blocks];
        for (int j = 0; j < keyCount; j++) {
            IndexRows.rawRow(index, j / ps * store.indexPageBytes(), ps, dimI, j % ps, c, j * dimI, s, j * blocks);
        }
        codes = c;
        scales = s;
    }
}
