package org.kvflow.kernels.rows;

import java.util.List;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageMemory;

/**
 * A {@link PageMemory} capability: reading and filling the arrays of a kernel device in place, so
 * rows computed on a GPU are stored into its pools, and keys are read out of them, with no byte
 * crossing the host. Asked for with {@code memory.capability(DeviceRowAccess.class)}; callers go
 * through {@link StoreRows}, which checks every argument first.
 */
public interface DeviceRowAccess {
    /** Whether the memory's device buffers and the arrays of kernel device {@code device} share an address space. */
    boolean reaches(Device device);

    /**
     * Entry {@code w} of {@code writes} (token, store, row; see {@link RowWrites}) puts the token's
     * MLA row into row {@code row} of {@code mla.get(store)} and its index key into the indexer
     * page holding that row of {@code index.get(store)}.
     */
    void storeRows(DeviceRows rows, RowGeometry g, List<PageBuffer> mla, List<PageBuffer> index, long[] writes, int count);

    /**
     * Index keys of positions {@code 0 .. keys-1} of a request into device arrays: key {@code j}
     * lies at slot {@code j % ps} of page {@code pages[j / ps]} of {@code index}.
     */
    void readIndexKeys(PageBuffer index, long[] pages, int keys, RowGeometry g, DeviceRegion codes, DeviceRegion scales);

    /**
     * Dequantised MLA keys ({@code C + R} floats each) of {@code positions} into a device array,
     * row {@code i} for position {@code positions[i]}, which lies at slot {@code j % ps} of page
     * {@code pages[j / ps]} of {@code mla}.
     */
    void readKeyRows(PageBuffer mla, long[] pages, long[] positions, RowGeometry g, DeviceRegion out);
}
