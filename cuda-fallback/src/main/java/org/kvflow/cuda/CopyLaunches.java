package org.kvflow.cuda;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import jcuda.Sizeof;
import org.kvflow.pages.PageCopy;

/**
 * The page-copy kernels' launches on one stream: up to {@link #MAX_COMPONENTS} buffer pairs with
 * one pair of page lists, or a batch of copies over a device-side table, each with its own lists.
 * A table equal to the one still in the stream's scratch is not sent again. Callers check the
 * copies; this class only lays out arguments and launches ({@link DriverLaunch}). Not thread-safe.
 */
final class CopyLaunches implements AutoCloseable {
    /** KV components one launch can move (the kernels take four base pairs). */
    static final int MAX_COMPONENTS = 4;
    /** Buffer pairs one table launch can move (grid.y). */
    static final int MAX_TABLE_ROWS = 65_535;
    private static final int BLOCK = 128;
    /** Blocks per page: each block copies a quarter page (bench/device/copy_variants.cu). */
    private static final int SLICES = 4;

    private final CudaStream stream;
    private final DriverLaunch copyV4;
    private final DriverLaunch copyTableV4;
    private final DriverLaunch copyU8;
    /** The table last sent (its first {@link #uploadedLength} longs) and the stage count it was sent at. */
    private long[] uploaded = new long[0];
    private int uploadedLength = -1;
    private long uploadedAt = -1;
    /** Where the next table is built before it is compared with the one sent. */
    private long[] building = new long[0];

    CopyLaunches(CudaDevice device, CudaStream stream) {
        this.stream = stream;
        this.copyV4 = new DriverLaunch("copy_pages_v4", device.function(CudaKernels.COPY_PAGES_V4), stream.stream(), 3 * MAX_COMPONENTS + 3);
        this.copyTableV4 = new DriverLaunch("copy_pages_table_v4", device.function(CudaKernels.COPY_PAGES_TABLE_V4), stream.stream(), 6);
        this.copyU8 = new DriverLaunch("copy_pages_u8", device.function(CudaKernels.COPY_PAGES_U8), stream.stream(), 3 * MAX_COMPONENTS + 3);
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
        launchTableAt(stream.scratch().address(), t.pairs(), rows, t.widest());
    }

    /** The table {@link #table} built last, as it would be sent: what a prepared copy keeps on the device. */
    long[] built(Table t) {
        return Arrays.copyOf(building, t.length());
    }

    /**
     * One launch over a table already at device address {@code table} ({@code pairs} page pairs,
     * {@code rows} copies, {@code widest} pairs in the longest), then one sync.
     */
    void launchTableAt(long table, int pairs, int rows, int widest) {
        long lists = 2L * pairs * Sizeof.LONG;
        long grid = (long) widest * SLICES;
        if (grid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(widest + " page pairs exceed one launch (at most " + Integer.MAX_VALUE / SLICES + ")");
        }
        copyTableV4.set(0, table + lists + 3L * rows * Sizeof.LONG).set(1, table + lists).setInt(2, rows).set(3, table)
                .set(4, table + (long) pairs * Sizeof.LONG).setInt(5, SLICES);
        stream.launch(() -> copyTableV4.launch((int) grid, rows, BLOCK));
    }

    /** The page lists go to the device scratch in one async copy; one launch for up to four buffer pairs; one sync. */
    void launchComponents(List<DeviceBuffer> src, long[] srcPages, List<DeviceBuffer> dst, long[] dstPages) {
        int n = srcPages.length;
        long srcList = stream.stage(srcPages, dstPages).address();
        int comps = src.size();
        boolean vectors = src.stream().allMatch(b -> b.pageBytes() % 16 == 0);
        DriverLaunch kernel = vectors ? copyV4 : copyU8;
        for (int c = 0; c < MAX_COMPONENTS; c++) {
            DeviceBuffer s = src.get(Math.min(c, comps - 1));
            DeviceBuffer d = dst.get(Math.min(c, comps - 1));
            kernel.set(3 * c, s.address.address()).set(3 * c + 1, d.address.address()).setInt(3 * c + 2, vectors ? s.pageBytes() / 16 : s.pageBytes());
        }
        int slices = vectors ? SLICES : 1;
        kernel.set(3 * MAX_COMPONENTS, srcList).set(3 * MAX_COMPONENTS + 1, srcList + (long) n * Sizeof.LONG).setInt(3 * MAX_COMPONENTS + 2, slices);
        long grid = (long) n * slices;
        if (grid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(n + " page pairs exceed one launch (at most " + Integer.MAX_VALUE / slices + ")");
        }
        stream.launch(() -> kernel.launch((int) grid, comps, BLOCK));
    }

    /** Frees the launches' argument blocks. */
    @Override
    public void close() {
        copyV4.close();
        copyTableV4.close();
        copyU8.close();
    }
}
