package org.kvflow.pages;

import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.zip.Checksum;

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

    /**
     * Copies {@code length} bytes from a Java array into {@code dst} at byte {@code offset}.
     *
     * @return the bytes that crossed between host memory and where {@code dst} lies (0 for a host buffer)
     */
    long write(PageBuffer dst, long offset, byte[] src, int srcOffset, int length);

    /** Copies the remaining bytes of {@code src} into {@code dst} at byte {@code offset}; {@code src} is consumed. {@return the bytes that crossed} */
    long write(PageBuffer dst, long offset, ByteBuffer src);

    /** Copies {@code length} bytes of {@code src} from byte {@code offset} into a Java array. {@return the bytes that crossed} */
    long read(PageBuffer src, long offset, int length, byte[] dst, int dstOffset);

    /** Fills the remaining space of {@code dst} with the bytes of {@code src} from byte {@code offset}. {@return the bytes that crossed} */
    long read(PageBuffer src, long offset, ByteBuffer dst);

    /** Copies {@code pages} whole pages from a Java array into {@code dst} starting at page {@code firstPage}. {@return the bytes that crossed} */
    default long writePages(PageBuffer dst, long firstPage, byte[] src, int srcOffset, int pages) {
        return write(dst, firstPage * dst.pageBytes(), src, srcOffset, pages * dst.pageBytes());
    }

    /** Copies {@code pages} whole pages of {@code src} starting at page {@code firstPage} into a Java array. {@return the bytes that crossed} */
    default long readPages(PageBuffer src, long firstPage, int pages, byte[] dst, int dstOffset) {
        return read(src, firstPage * src.pageBytes(), pages * src.pageBytes(), dst, dstOffset);
    }

    /**
     * Bytes {@code [offset, offset + length)} of a host buffer (heap, or pinned for {@code cuda}) as
     * a writable view, for decoders that fill pages in place (a journal restore into pinned staging).
     *
     * @throws NotHostMemoryException if {@code buffer} lies in device memory
     * @throws ByteRangeException if the range does not lie inside the buffer
     */
    ByteBuffer hostView(PageBuffer buffer, long offset, int length);

    /** Feeds {@code length} bytes of {@code src} from byte {@code offset} to {@code checksum}. {@return the bytes that crossed to compute it} */
    long checksum(PageBuffer src, long offset, int length, Checksum checksum);

    /**
     * {@code dst[dstPages[i]] ← src[srcPages[i]]}: direct copies, gathers (dst pages 0..n-1) and
     * scatters (src pages 0..n-1), between any two buffers of this memory.
     *
     * @return the bytes that crossed between host memory and memory outside it (a copy between a device and a pinned buffer)
     * @throws PageListMismatchException if the lists differ in length
     * @throws PageSizeMismatchException if the page sizes differ
     * @throws PageOutOfRangeException if a page is outside its buffer
     */
    long copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages);

    /**
     * Several page copies as one batch (every layer's MLA and indexer buffers of a view, gathered
     * from every owner). Every copy is checked before the first byte moves; a memory may run the
     * whole batch as one launch.
     *
     * @return the bytes that crossed
     */
    default long copyPages(List<PageCopy> copies) {
        PageCopies.checkPairs(copies);
        long crossed = 0;
        for (PageCopy copy : copies) {
            crossed += copyPages(copy.src(), copy.srcPages(), copy.dst(), copy.dstPages());
        }
        return crossed;
    }

    /**
     * What this memory can do beyond moving bytes, asked for by type: {@link BufferExport} and
     * {@link BufferImport} (buffers shared with other processes in place), {@link SideBySideViews}
     * (several processes' buffers mapped as one), or a capability a higher layer defines (the
     * kernels' in-place row access). By default the memory itself, where it implements {@code type}.
     *
     * @param type the capability's interface
     * @return the capability, or empty where this memory has none of that type
     */
    default <C> Optional<C> capability(Class<C> type) {
        return type.isInstance(this) ? Optional.of(type.cast(this)) : Optional.empty();
    }

    /** The ledger its stores count the bytes their calls cross into, by stage (empty for a heap memory). */
    HostTraffic hostTraffic();

    /** Frees a buffer now rather than at {@link #close()}. */
    void free(PageBuffer buffer);

    @Override
    void close();
}
