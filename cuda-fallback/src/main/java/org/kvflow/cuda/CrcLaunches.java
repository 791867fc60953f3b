package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import java.util.HashMap;
import java.util.Map;
import java.util.zip.CRC32C;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import org.kvflow.pages.Crc32cCombine;

/**
 * The CRC32C kernels' launches ({@code crc32c.cu}) on a stream they own: a page memory's checksum
 * lane ({@link Lanes}). The buffers' bases and page sizes (each with the CRC32C of as many zero
 * bytes, which the kernel adds for the register's preset), each buffer's multiplier for the join
 * (x^(8·the bytes after its page)) and the page lists are staged in one upload; one launch of a
 * block an SM (a warp a page of a buffer), then the join, a warp a page, in the same wait; one
 * checksum a page is read back on the same stream. Callers check the buffers and pages. Not
 * thread-safe: a lane serves one call at a time.
 */
final class CrcLaunches {
    private static final int BLOCK = 1024;
    private static final int RANGES_PER_BLOCK = BLOCK / 32;
    private static final int JOIN_BLOCK = 256;
    private static final int PAGES_PER_JOIN_BLOCK = JOIN_BLOCK / 32;
    /** The kernel's static shared memory (its plain tables). */
    private static final int STATIC_SHARED = 4 * 1024 + 256;
    /** Dynamic shared memory per copy of the skip tables. */
    private static final int TABLES_BYTES = 4 * 256 * Integer.BYTES;
    private static final byte[] ZEROS = new byte[64 * 1024];

    private final CudaDevice device;
    private final CudaStream stream;
    /** Copies of the skip tables: 32 (a bank a lane) where the device's blocks may hold them, fewer where not. */
    private final int copies;
    /** By page size: the CRC32C of as many zero bytes (high 32 bits) and the multiplier that appends as many bytes (low 32). */
    private final Map<Integer, Long> sizeTerms = new HashMap<>();
    private CUfunction kernel;
    private CUfunction join;

    /** The kernels' module loads at the first checksum, not when the memory opens: most memories never checksum in place. */
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
     * {@code crcs[k]}: the CRC32C of page {@code srcPages[k]} ({@code pageBytes[b]} bytes) of the
     * buffer at device address {@code srcBases[0]}, then of the one at {@code srcBases[1]}, and so
     * on; where {@code dstBases[b]} is not 0, each page is also copied, as it is read, to page
     * {@code dstPages[k]} of the buffer there. Two launches, one wait.
     */
    int[] crc32c(long[] srcBases, long[] dstBases, int[] pageBytes, long[] srcPages, long[] dstPages) {
        int count = srcBases.length;
        int pages = srcPages.length;
        long ranges = (long) count * pages;
        int[] joined = new int[pages];
        if (ranges == 0) {
            return joined;
        }
        long[] entries = new long[count];
        long[] multipliers = new long[count];
        int after = 0x80000000; // x^0: nothing follows the last buffer's page
        for (int b = count - 1; b >= 0; b--) {
            long terms = sizeTerms.computeIfAbsent(pageBytes[b], CrcLaunches::terms);
            entries[b] = (terms & 0xFFFF_FFFF_0000_0000L) | pageBytes[b];
            multipliers[b] = after & 0xFFFF_FFFFL;
            after = Crc32cCombine.times(after, (int) terms);
        }
        // the kernels write the checksums, then the joined ones, after the lists: room the upload leaves alone
        DevicePointer table = stream.stageWithRoom((ranges + pages) * Sizeof.INT, srcBases, dstBases, entries, multipliers, srcPages, dstPages);
        Pointer args = Pointer.to(Pointer.to(table), Pointer.to(new int[] {count}), Pointer.to(new int[] {pages}), Pointer.to(new int[] {copies}));
        Pointer joinArgs = Pointer.to(Pointer.to(table), Pointer.to(new int[] {count}), Pointer.to(new int[] {pages}));
        CUfunction f = kernel();
        int blocks = (int) Math.min(device.multiprocessors(), (ranges + RANGES_PER_BLOCK - 1) / RANGES_PER_BLOCK);
        int shared = copies * TABLES_BYTES;
        int joinBlocks = (pages + PAGES_PER_JOIN_BLOCK - 1) / PAGES_PER_JOIN_BLOCK;
        stream.launch(() -> {
            cuLaunchKernel(f, blocks, 1, 1, BLOCK, 1, 1, shared, stream.stream(), args, null);
            cuLaunchKernel(join, joinBlocks, 1, 1, JOIN_BLOCK, 1, 1, 0, stream.stream(), joinArgs, null);
        });
        stream.readInts((4L * count + 2L * pages) * Sizeof.LONG + ranges * Sizeof.INT, joined);
        return joined;
    }

    /** Destroys the stream these launches run on, which they own (a checksum lane's); the device's context must be current. */
    void close() {
        stream.close();
    }

    /** Loaded once (then cached by the device), and allowed its tables' dynamic shared memory. */
    private CUfunction kernel() {
        if (kernel == null) {
            CUfunction f = device.function(CudaKernels.CRC32C_PAGES);
            cuFuncSetAttribute(f, CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, copies * TABLES_BYTES);
            join = device.function(CudaKernels.CRC32C_JOIN);
            kernel = f;
        }
        return kernel;
    }

    /** A page size's terms: the CRC32C of as many zero bytes (high 32 bits) and the multiplier that appends as many bytes (low 32). */
    private static long terms(int length) {
        return (ofZeros(length) & 0xFFFF_FFFFL) << 32 | (Crc32cCombine.multiplier(length) & 0xFFFF_FFFFL);
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
