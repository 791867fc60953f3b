package org.kvflow.kernels.pages;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.zip.Checksum;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;

/**
 * A memory that owns page buffers and moves their bytes: the Java heap ({@code java}), or a GPU
 * with its pinned host memory ({@code cuda}). Every call checks its page lists or byte ranges
 * before the first byte moves, so a bad call changes nothing. {@link #close()} frees every buffer
 * it allocated. A memory is used by one thread at a time; writers of disjoint pages of a heap
 * memory may run concurrently.
 */
public interface PageMemory extends AutoCloseable {
    /** The name it is found by ({@code java}, {@code cuda}). */
    String name();

    /** The device it runs on, as its driver names it. */
    String deviceName();

    /** A zeroed buffer in this memory's own kind of memory (heap for {@code java}, device memory for {@code cuda}). */
    PageBuffer allocate(String label, long pages, int pageBytes);

    /** A zeroed host staging buffer (pinned for {@code cuda}), e.g. a HiCache host pool. */
    PageBuffer allocateHost(String label, long pages, int pageBytes);

    /** Copies {@code length} bytes from a Java array into {@code dst} at byte {@code offset}. */
    void write(PageBuffer dst, long offset, byte[] src, int srcOffset, int length);

    /** Copies the remaining bytes of {@code src} into {@code dst} at byte {@code offset}; {@code src} is consumed. */
    void write(PageBuffer dst, long offset, ByteBuffer src);

    /** Copies {@code length} bytes of {@code src} from byte {@code offset} into a Java array. */
    void read(PageBuffer src, long offset, int length, byte[] dst, int dstOffset);

    /** Fills the remaining space of {@code dst} with the bytes of {@code src} from byte {@code offset}. */
    void read(PageBuffer src, long offset, ByteBuffer dst);

    /** Copies {@code pages} whole pages from a Java array into {@code dst} starting at page {@code firstPage}. */
    default void writePages(PageBuffer dst, long firstPage, byte[] src, int srcOffset, int pages) {
        write(dst, firstPage * dst.pageBytes(), src, srcOffset, pages * dst.pageBytes());
    }

    /** Copies {@code pages} whole pages of {@code src} starting at page {@code firstPage} into a Java array. */
    default void readPages(PageBuffer src, long firstPage, int pages, byte[] dst, int dstOffset) {
        read(src, firstPage * src.pageBytes(), pages * src.pageBytes(), dst, dstOffset);
    }

    /**
     * Bytes {@code [offset, offset + length)} of a host buffer (heap, or pinned for {@code cuda}) as
     * a writable view, for decoders that fill pages in place (a journal restore into pinned staging).
     *
     * @throws NotHostMemoryException if {@code buffer} lies in device memory
     * @throws ByteRangeException if the range does not lie inside the buffer
     */
    ByteBuffer hostView(PageBuffer buffer, long offset, int length);

    /** Feeds {@code length} bytes of {@code src} from byte {@code offset} to {@code checksum}. */
    void checksum(PageBuffer src, long offset, int length, Checksum checksum);

    /**
     * {@code dst[dstPages[i]] ← src[srcPages[i]]}: direct copies, gathers (dst pages 0..n-1) and
     * scatters (src pages 0..n-1), between any two buffers of this memory.
     *
     * @throws PageListMismatchException if the lists differ in length
     * @throws PageSizeMismatchException if the page sizes differ
     * @throws org.kvflow.kernels.gather.PageOutOfRangeException if a page is outside its buffer
     */
    void copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages);

    /**
     * Several page copies as one batch (every layer's MLA and indexer buffers of a view, gathered
     * from every owner). Every copy is checked before the first byte moves; a memory may run the
     * whole batch as one launch.
     */
    default void copyPages(List<PageCopy> copies) {
        PageCopies.checkPairs(copies);
        for (PageCopy copy : copies) {
            copyPages(copy.src(), copy.srcPages(), copy.dst(), copy.dstPages());
        }
    }

    /**
     * Whether this memory's device buffers and the arrays of kernel device {@code device} share an
     * address space, so the row operations below can read and fill those arrays in place.
     */
    default boolean reaches(Device device) {
        return false;
    }

    /**
     * Stores computed rows into pages in place on the device: entry {@code w} of {@code writes}
     * (token, store, row; see {@link RowWrites}) puts the token's MLA row into row {@code row} of
     * {@code mla.get(store)} and its index key into the indexer page holding that row of
     * {@code index.get(store)}. The caller has checked every entry.
     *
     * @throws UnsupportedOperationException where {@link #reaches} is false for every device
     */
    default void storeRows(DeviceRows rows, RowGeometry g, List<PageBuffer> mla, List<PageBuffer> index, long[] writes, int count) {
        throw new UnsupportedOperationException("the " + name() + " page memory stores no rows from device arrays");
    }

    /**
     * Index keys of positions {@code 0 .. keys-1} of a request into device arrays: key {@code j}
     * lies at slot {@code j % ps} of page {@code pages[j / ps]} of {@code index}. Checked by the caller.
     *
     * @throws UnsupportedOperationException where {@link #reaches} is false for every device
     */
    default void readIndexKeys(PageBuffer index, long[] pages, int keys, RowGeometry g, DeviceRegion codes, DeviceRegion scales) {
        throw new UnsupportedOperationException("the " + name() + " page memory fills no device arrays");
    }

    /**
     * Dequantised MLA keys ({@code C + R} floats each) of {@code positions} into a device array,
     * row {@code i} for position {@code positions[i]}, which lies at slot {@code j % ps} of page
     * {@code pages[j / ps]} of {@code mla}. Checked by the caller.
     *
     * @throws UnsupportedOperationException where {@link #reaches} is false for every device
     */
    default void readKeyRows(PageBuffer mla, long[] pages, long[] positions, RowGeometry g, DeviceRegion out) {
        throw new UnsupportedOperationException("the " + name() + " page memory fills no device arrays");
    }

    /**
     * A zeroed buffer that other processes can open in place, also side by side with others
     * ({@link #importSideBySide}); where the memory has no such kind, an ordinary {@link #allocate}.
     */
    default PageBuffer allocateShared(String label, long pages, int pageBytes) {
        return allocate(label, pages, pageBytes);
    }

    /**
     * The smallest stride, in pages, at which buffers of {@code pagesEach} pages of every size in
     * {@code pageBytes} can be mapped side by side ({@link #importSideBySide}): one stride for all,
     * so a page number means the same page in every layer and component.
     *
     * @throws UnsupportedOperationException where this memory cannot map other processes' buffers
     */
    default long sideBySideStride(long pagesEach, int... pageBytes) {
        throw new UnsupportedOperationException("the " + name() + " page memory maps no buffers of other processes side by side");
    }

    /**
     * Buffers of other processes (handles of {@link #allocateShared} buffers) opened side by side
     * in one buffer of this memory: buffer {@code i}'s page {@code k} is page {@code i·stride + k}
     * ({@code stride} from {@link #sideBySideStride}). A virtual view of every rank's pool, read in place.
     *
     * @throws UnsupportedOperationException where this memory cannot map other processes' buffers
     */
    default PageBuffer importSideBySide(String label, List<byte[]> handles, long pagesEach, int pageBytes, long stride) {
        throw new UnsupportedOperationException("the " + name() + " page memory maps no buffers of other processes side by side");
    }

    /**
     * A handle another process on the same machine can open to reach {@code buffer} in place (a
     * CUDA IPC handle for device memory). The buffer stays this memory's; the handle is valid
     * while it lives.
     *
     * @throws UnsupportedOperationException where this memory's buffers cannot be shared between processes
     */
    default byte[] exportBuffer(PageBuffer buffer) {
        throw new UnsupportedOperationException("the " + name() + " page memory shares no buffer with other processes");
    }

    /**
     * Opens a buffer another process exported ({@link #exportBuffer}) as a buffer of this memory
     * that reads and writes the other process's pages in place; {@link #free} closes the handle and
     * never frees the other process's memory.
     *
     * @throws UnsupportedOperationException where this memory cannot open shared buffers
     */
    default PageBuffer importBuffer(String label, byte[] handle, long pages, int pageBytes) {
        throw new UnsupportedOperationException("the " + name() + " page memory opens no buffer of another process");
    }

    /** Page bytes this memory moved between host memory and its device buffers, by stage (none for a heap memory). */
    HostTraffic hostTraffic();

    /** Frees a buffer now rather than at {@link #close()}. */
    void free(PageBuffer buffer);

    @Override
    void close();
}
