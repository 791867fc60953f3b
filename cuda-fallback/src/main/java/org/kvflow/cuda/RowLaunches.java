package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import java.util.Arrays;
import java.util.List;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.rows.DeviceRows;
import org.kvflow.kernels.rows.RowGeometry;

/**
 * The row kernels' launches on one stream: a chunk's computed rows into their stores' pages, and a
 * view's index keys and key rows out of its pages into task-graph arrays, all in place on the device.
 * Callers check rows and pages; this class lays out arguments and launches. Not thread-safe.
 */
final class RowLaunches {
    private static final int BLOCK = 128;

    private final CudaStream stream;
    private final CUfunction storeRows;
    private final CUfunction indexKeys;
    private final CUfunction keyRows;

    RowLaunches(CudaDevice device, CudaStream stream) {
        this.stream = stream;
        this.storeRows = device.function(CudaKernels.STORE_ROWS);
        this.indexKeys = device.function(CudaKernels.INDEX_KEYS);
        this.keyRows = device.function(CudaKernels.KEY_ROWS);
    }

    /** The write table, then per store its MLA and indexer buffer addresses, in one upload; one launch of a block per write. */
    void store(DeviceRows rows, RowGeometry g, List<DeviceBuffer> mla, List<DeviceBuffer> index, long[] writes, int count) {
        int stores = mla.size();
        long[] table = Arrays.copyOf(writes, 3 * count + 2 * stores);
        for (int s = 0; s < stores; s++) {
            table[3 * count + s] = mla.get(s).address.address();
            table[3 * count + stores + s] = index.get(s).address.address();
        }
        CUdeviceptr at = stream.stage(table);
        Pointer args = Pointer.to(region(rows.latentCodes()), region(rows.latentScales()), region(rows.latent()), region(rows.rope()),
                region(rows.indexCodes()), region(rows.indexScales()), Pointer.to(at), ints(count), ints(stores), ints(g.latent()),
                ints(g.rope()), ints(g.index()), ints(g.pageSize()), ints(g.rowBytes()), ints(g.scaleOffset()), ints(g.ropeOffset()),
                ints(g.fp8() ? 1 : 0));
        stream.launch(() -> cuLaunchKernel(storeRows, count, 1, 1, BLOCK, 1, 1, 0, stream.stream(), args, null));
    }

    /** {@code keys} index keys (codes and scales) of the listed pages of {@code index}. */
    void indexKeys(DeviceBuffer index, long[] pages, int keys, RowGeometry g, DeviceRegion codes, DeviceRegion scales) {
        CUdeviceptr at = stream.stage(pages);
        Pointer args = Pointer.to(Pointer.to(index.address), Pointer.to(at), ints(keys), ints(g.pageSize()), ints(g.index()), region(codes),
                region(scales));
        stream.launch(() -> cuLaunchKernel(indexKeys, keys, 1, 1, BLOCK, 1, 1, 0, stream.stream(), args, null));
    }

    /** The key rows at {@code positions} of the listed pages of {@code mla}, dequantised into {@code out}. */
    void keyRows(DeviceBuffer mla, long[] pages, long[] positions, RowGeometry g, DeviceRegion out) {
        CUdeviceptr at = stream.stage(pages, positions);
        Pointer args = Pointer.to(Pointer.to(mla.address), Pointer.to(at), Pointer.to(at.withByteOffset((long) pages.length * Sizeof.LONG)),
                ints(g.latent()), ints(g.rope()), ints(g.pageSize()), ints(g.rowBytes()), ints(g.scaleOffset()), ints(g.ropeOffset()),
                ints(g.fp8() ? 1 : 0), region(out));
        stream.launch(() -> cuLaunchKernel(keyRows, positions.length, 1, 1, BLOCK, 1, 1, 0, stream.stream(), args, null));
    }

    private static Pointer region(DeviceRegion r) {
        return Pointer.to(new DevicePointer(r.address()));
    }

    private static Pointer ints(int v) {
        return Pointer.to(new int[] {v});
    }
}
