package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;

import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;

/**
 * The CRC32C kernel's launches on one stream ({@code crc32c.cu}): the buffers' bases and page
 * sizes (each with the CRC32C of as many zero bytes, which the kernel adds for the register's
 * preset) and the page lists staged in one upload, one launch of a block an SM (a warp a page of a
 * buffer), the checksums read back. Callers check the buffers and pages. Not thread-safe.
 */
final class CrcLaunches {
    private static final int BLOCK = 1024;
    private static final int RANGES_PER_BLOCK = BLOCK / 32;
    /** The kernel's static shared memory (its plain tables). */
    private static final int STATIC_SHARED = 4 * 1024 + 256;
    /** Dynamic shared memory per copy of the skip tables. */
    private static final int TABLES_BYTES = 4 * 256 * Integer.BYTES;
    private static final byte[] ZEROS = new byte[64 * 1024];

    private final CudaDevice device;
    private final CudaStream stream;
    /** Copies of the skip tables: 32 (a bank a lane) where the device's blocks may hold them, fewer where not. */
    private final int copies;
    private CUfunction kernel;

    /** The kernel's module loads at the first checksum, not when the memory opens: most memories never checksum in place. */
    CrcLaunches(CudaDevice device, CudaStream stream) {
        this.device = device;
        this.stream = stream;
        int copies = 32;
        while (copies > 1 && STATIC_SHARED + copies * TABLES_BYTES > device.sharedBytesPerBlock()) {
            copies /= 2;
        }
        this.copies = copies;
    }

    /**
     * {@code crcs[b][k]}: the CRC32C of page {@code srcPages[k]} ({@code pageBytes[b]} bytes) of the
     * buffer at device address {@code srcBases[b]}; where {@code dstBases[b]} is not 0, the page is
     * also copied, as it is read, to page {@code dstPages[k]} of the buffer there. One launch.
     */
    int[][] crc32c(long[] srcBases, long[] dstBases, int[] pageBytes, long[] srcPages, long[] dstPages) {
        int count = srcBases.length;
        int pages = srcPages.length;
        long ranges = (long) count * pages;
        int[][] crcs = new int[count][pages];
        if (ranges == 0) {
            return crcs;
        }
        long[] entries = new long[count];
        Map<Integer, Integer> zeros = new HashMap<>(); // a store's buffers have two page sizes: each hashed once a call
        for (int b = 0; b < count; b++) {
            entries[b] = (zeros.computeIfAbsent(pageBytes[b], CrcLaunches::ofZeros) & 0xFFFF_FFFFL) << 32 | pageBytes[b];
        }
        long[] out = new long[(int) ((ranges + 1) / 2)]; // the kernel writes the checksums after the lists
        DevicePointer table = stream.stage(srcBases, dstBases, entries, srcPages, dstPages, out);
        Pointer args = Pointer.to(Pointer.to(table), Pointer.to(new int[] {count}), Pointer.to(new int[] {pages}), Pointer.to(new int[] {copies}));
        CUfunction f = kernel();
        int blocks = (int) Math.min(device.multiprocessors(), (ranges + RANGES_PER_BLOCK - 1) / RANGES_PER_BLOCK);
        int shared = copies * TABLES_BYTES;
        stream.launch(() -> cuLaunchKernel(f, blocks, 1, 1, BLOCK, 1, 1, shared, stream.stream(), args, null));
        int[] flat = new int[(int) ranges];
        cuMemcpyDtoH(Pointer.to(flat), table.withByteOffset((3L * count + 2L * pages) * Sizeof.LONG), ranges * Sizeof.INT);
        for (int b = 0; b < count; b++) {
            System.arraycopy(flat, b * pages, crcs[b], 0, pages);
        }
        return crcs;
    }

    /** Loaded once (then cached by the device), and allowed its tables' dynamic shared memory. */
    private CUfunction kernel() {
        if (kernel == null) {
            CUfunction f = device.function(CudaKernels.CRC32C_PAGES);
            cuFuncSetAttribute(f, CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, copies * TABLES_BYTES);
            kernel = f;
        }
        return kernel;
    }

    /** The CRC32C of {@code length} zero bytes: what the register's preset adds over a page of that length. */
    private static int ofZeros(int length) {
        CRC32C crc = new CRC32C();
        for (int left = length; left > 0; left -= ZEROS.length) {
            crc.update(ZEROS, 0, Math.min(left, ZEROS.length));
        }
        return (int) crc.getValue();
    }
}
