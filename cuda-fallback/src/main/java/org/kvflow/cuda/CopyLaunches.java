package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuLaunchKernel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import org.kvflow.pages.PageCopy;

/**
 * The page-copy kernels' launches on one stream: up to {@link #MAX_COMPONENTS} buffer pairs with
 * one pair of page lists, or a batch of copies over a device-side table, each with its own lists.
 * A table equal to the one still in the stream's scratch is not sent again. Callers check the
 * copies; this class only lays out arguments and launches. Not thread-safe.
 */
final class CopyLaunches {
    /** KV components one launch can move (the kernels take four base pairs). */
    static final int MAX_COMPONENTS = 4;
    /** Buffer pairs one table launch can move (grid.y). */
    static final int MAX_TABLE_ROWS = 65_535;
    private static final int BLOCK = 128;
    /** Blocks per page: each block copies a quarter page (bench/device/copy_variants.cu). */
    private static final int SLICES = 4;

    private final CudaStream stream;
    private final CUfunction copyV4;
    private final CUfunction copyTableV4;
    private final CUfunction copyU8;
    /** The table last sent (its first {@link #uploadedLength} longs) and the stage count it was sent at. */
    private long[] uploaded = new long[0];
    private int uploadedLength = -1;
    private long uploadedAt = -1;
    /** Where the next table is built before it is compared with the one sent. */
    private long[] building = new long[0];

    CopyLaunches(CudaDevice device, CudaStream stream) {
        this.stream = stream;
        this.copyV4 = device.function(CudaKernels.COPY_PAGES_V4);
        this.copyTableV4 = device.function(CudaKernels.COPY_PAGES_TABLE_V4);
        this.copyU8 = device.function(CudaKernels.COPY_PAGES_U8);
    }

    /** A copy table built in {@link #building}: its length in longs, its distinct page pairs, the longest row, and whether it equals the one in scratch. */
    record Table(int length, int pairs, int widest, boolean sent) {}

    /** A (source list, destination list) pair of arrays, by identity: each distinct pair goes into the table once. */
    private record Lists(long[] src, long[] dst) {}

    /**
     * The table of {@code copies} on the heap: page lists (each distinct pair of lists once), per
     * copy its page size in 16-byte units, list offset and pair count, the buffers' addresses, and
     * per copy its buffers' page counts (what the checks depend on, so an equal table needs no new
     * check). Tells whether it equals the table still in the stream's scratch.
     */
    Table table(List<PageCopy> copies, List<DeviceBuffer> from, List<DeviceBuffer> to) {
        int rows = copies.size();
        Map<Lists, Integer> offsets = new HashMap<>();
        List<Lists> distinct = new ArrayList<>();
        int[] rowOffset = new int[rows];
        int pairs = 0;
        int widest = 0;
        PageCopy previous = null;
        for (int i = 0; i < rows; i++) {
            PageCopy copy = copies.get(i);
            if (previous != null && copy.srcPages() == previous.srcPages() && copy.dstPages() == previous.dstPages()) {
                rowOffset[i] = rowOffset[i - 1]; // a view's rows come owner by owner: most share the row before's lists
            } else {
                Lists key = new Lists(copy.srcPages(), copy.dstPages());
                Integer at = offsets.get(key);
                if (at == null) {
                    at = pairs;
                    offsets.put(key, at);
                    distinct.add(key);
                    pairs += copy.srcPages().length;
                }
                rowOffset[i] = at;
            }
            previous = copy;
            widest = Math.max(widest, copy.srcPages().length);
        }
        int length = 2 * pairs + 3 * rows + 2 * rows + 2 * rows;
        if (building.length < length) {
            building = new long[length];
        }
        long[] table = building;
        for (Lists l : distinct) {
            int at = offsets.get(l);
            System.arraycopy(l.src(), 0, table, at, l.src().length);
            System.arraycopy(l.dst(), 0, table, pairs + at, l.dst().length);
        }
        int at = 2 * pairs;
        for (int i = 0; i < rows; i++) {
            PageCopy copy = copies.get(i);
            table[at++] = copy.src().pageBytes() / 16;
            table[at++] = rowOffset[i];
            table[at++] = copy.srcPages().length;
        }
        for (DeviceBuffer b : from) {
            table[at++] = b.address.address();
        }
        for (DeviceBuffer b : to) {
            table[at++] = b.address.address();
        }
        for (int i = 0; i < rows; i++) {
            table[at++] = from.get(i).pages();
            table[at++] = to.get(i).pages();
        }
        boolean sent = stream.holds(uploadedAt) && uploadedLength == length && Arrays.equals(building, 0, length, uploaded, 0, length);
        return new Table(length, pairs, widest, sent);
    }

    /** Sends the table {@link #table} built unless it is already in scratch (one asynchronous copy), then one launch and one sync. */
    void launchTable(Table t, int rows) {
        if (!t.sent()) {
            uploadedAt = stream.stageTable(building, t.length());
            long[] swap = uploaded;
            uploaded = building;
            building = swap;
            uploadedLength = t.length();
        }
        CUdeviceptr scratch = stream.scratch();
        long lists = 2L * t.pairs() * Sizeof.LONG;
        CUdeviceptr metaAt = scratch.withByteOffset(lists);
        CUdeviceptr addrsAt = scratch.withByteOffset(lists + 3L * rows * Sizeof.LONG);
        long grid = (long) t.widest() * SLICES;
        if (grid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(t.widest() + " page pairs exceed one launch (at most " + Integer.MAX_VALUE / SLICES + ")");
        }
        Pointer args = Pointer.to(Pointer.to(addrsAt), Pointer.to(metaAt), Pointer.to(new int[] {rows}), Pointer.to(scratch),
                Pointer.to(scratch.withByteOffset((long) t.pairs() * Sizeof.LONG)), Pointer.to(new int[] {SLICES}));
        stream.launch(() -> cuLaunchKernel(copyTableV4, (int) grid, rows, 1, BLOCK, 1, 1, 0, stream.stream(), args, null));
    }

    /** The page lists go to the device scratch in one async copy; one launch for up to four buffer pairs; one sync. */
    void launchComponents(List<DeviceBuffer> src, long[] srcPages, List<DeviceBuffer> dst, long[] dstPages) {
        int n = srcPages.length;
        CUdeviceptr srcList = stream.stage(srcPages, dstPages);
        CUdeviceptr dstList = srcList.withByteOffset((long) n * Sizeof.LONG);
        int comps = src.size();
        boolean vectors = src.stream().allMatch(b -> b.pageBytes() % 16 == 0);
        Pointer[] args = new Pointer[3 * MAX_COMPONENTS + 3];
        for (int c = 0; c < MAX_COMPONENTS; c++) {
            DeviceBuffer s = src.get(Math.min(c, comps - 1));
            DeviceBuffer d = dst.get(Math.min(c, comps - 1));
            args[3 * c] = Pointer.to(s.address);
            args[3 * c + 1] = Pointer.to(d.address);
            args[3 * c + 2] = Pointer.to(new int[] {vectors ? s.pageBytes() / 16 : s.pageBytes()});
        }
        args[3 * MAX_COMPONENTS] = Pointer.to(srcList);
        args[3 * MAX_COMPONENTS + 1] = Pointer.to(dstList);
        int slices = vectors ? SLICES : 1;
        args[3 * MAX_COMPONENTS + 2] = Pointer.to(new int[] {slices});
        long grid = (long) n * slices;
        if (grid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(n + " page pairs exceed one launch (at most " + Integer.MAX_VALUE / slices + ")");
        }
        stream.launch(() -> cuLaunchKernel(vectors ? copyV4 : copyU8, (int) grid, comps, 1, BLOCK, 1, 1, 0, stream.stream(),
                Pointer.to(args), null));
    }
}
