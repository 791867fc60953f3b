package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.zip.Checksum;
import jcuda.Pointer;
import jcuda.driver.JCudaDriver;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.rows.DeviceRowAccess;
import org.kvflow.kernels.rows.DeviceRows;
import org.kvflow.kernels.rows.RowGeometry;
import org.kvflow.pages.BufferExport;
import org.kvflow.pages.BufferImport;
import org.kvflow.pages.ByteRangeException;
import org.kvflow.pages.CheckedCopies;
import org.kvflow.pages.ForeignBufferException;
import org.kvflow.pages.HostTraffic;
import org.kvflow.pages.InPlaceCrcs;
import org.kvflow.pages.MemoryUnavailableException;
import org.kvflow.pages.NotHostMemoryException;
import org.kvflow.pages.OutOfDeviceMemoryException;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageCopies;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.PageLists;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PreparedCopies;
import org.kvflow.pages.Residency;
import org.kvflow.pages.SideBySideViews;

/**
 * The {@code cuda} page memory: device and pinned host buffers in one {@link CudaDevice}'s context,
 * on a stream of its own. Copies run the hand-written kernels ({@link CopyLaunches}), also to and
 * from pinned host memory, which is mapped into the device's address space; the row kernels
 * ({@link RowLaunches}) move model rows in place; CRC32Cs of pages are computed on the device, also
 * by a copy as it moves them ({@link CrcLaunches}); {@link SharedBuffers} makes what other
 * processes open. Each call waits for its stream once before returning. Every buffer is freed in
 * {@link #close()}. Thread-safe: calls are serialized (pipeline stages on different threads share
 * one memory), except the checksum kernels, which run on lanes of their own ({@link Lanes}, a
 * stream each) once their buffers are resolved, side by side with each other and with the
 * serialized calls; a buffer is freed only when no checksum call runs.
 */
public final class CudaPageMemory implements PageMemory, BufferExport, BufferImport, SideBySideViews, DeviceRowAccess, PreparedCopies, InPlaceCrcs, CheckedCopies {
    /** Checksum calls that run side by side at most, a stream each: a CP group's ranks. */
    static final int CHECK_LANES = 8;

    private final CudaDevice device;
    private final CudaStream stream;
    private final PageCopyCalls calls;
    private final RowLaunches rows;
    private final Lanes<CrcLaunches> crcs;
    private final SharedBuffers shared;
    private final Set<DeviceBuffer> live = new LinkedHashSet<>();
    private final HostTraffic traffic = new HostTraffic();
    private boolean closed;

    /**
     * Opens device {@code ordinal}, launches untimed.
     *
     * @throws MemoryUnavailableException when the driver library or a device is missing
     */
    public CudaPageMemory(int ordinal) {
        this(ordinal, LaunchClock.UNTIMED);
    }

    /**
     * Opens device {@code ordinal}, every kernel launch run through {@code clock}.
     *
     * @throws MemoryUnavailableException when the driver library or a device is missing
     */
    public CudaPageMemory(int ordinal, LaunchClock clock) {
        this.device = CudaDevice.open(ordinal);
        try {
            device.makeCurrent();
            this.stream = new CudaStream(clock);
        } catch (RuntimeException e) {
            throw new CudaCopyException("opening a stream on CUDA device " + ordinal, e);
        }
        try {
            this.calls = new PageCopyCalls(this, new CopyLaunches(device, stream));
            this.rows = new RowLaunches(device, stream);
            this.crcs = new Lanes<>(CHECK_LANES, () -> new CrcLaunches(device, new CudaStream(clock)), CrcLaunches::close, "the CUDA page memory");
            this.shared = new SharedBuffers(device);
        } catch (RuntimeException e) {
            CudaCopyException failure = new CudaCopyException("loading the page kernels on CUDA device " + ordinal, e);
            try {
                close();
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public String deviceName() {
        return device.name();
    }

    /** The device this memory's buffers live on. */
    public CudaDevice device() {
        return device;
    }

    @Override
    public synchronized PageBuffer allocate(String label, long pages, int pageBytes) {
        checkSize(label, pages, pageBytes);
        current();
        DevicePointer ptr = new DevicePointer();
        String what = label + " (" + pages + " pages of " + pageBytes + " B)";
        try {
            cuMemAlloc(ptr, Math.max(1, pages * pageBytes));
        } catch (RuntimeException e) {
            if (String.valueOf(e.getMessage()).contains("CUDA_ERROR_OUT_OF_MEMORY")) {
                throw new OutOfDeviceMemoryException(name(), what, pages * pageBytes, device.freeBytes(), e);
            }
            throw new CudaCopyException("allocating " + what, e);
        }
        DeviceBuffer buffer = track(new DeviceBuffer(label, pages, pageBytes, Residency.DEVICE, ptr, null));
        try {
            cuMemsetD8(ptr, (byte) 0, pages * pageBytes);
        } catch (RuntimeException e) {
            free(buffer);
            throw new CudaCopyException("zeroing " + what, e);
        }
        return buffer;
    }

    @Override
    public synchronized PageBuffer allocateHost(String label, long pages, int pageBytes) {
        checkSize(label, pages, pageBytes);
        current();
        Pointer host = new Pointer();
        DevicePointer mapped = new DevicePointer();
        try {
            cuMemHostAlloc(host, Math.max(1, pages * pageBytes), JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP | JCudaDriver.CU_MEMHOSTALLOC_PORTABLE);
            cuMemHostGetDevicePointer(mapped, host, 0);
            cuMemsetD8(mapped, (byte) 0, pages * pageBytes);
        } catch (RuntimeException e) {
            throw new CudaCopyException("allocating pinned " + label + " (" + pages + " pages of " + pageBytes + " B)", e);
        }
        return track(new DeviceBuffer(label, pages, pageBytes, Residency.PINNED_HOST, mapped, host));
    }

    @Override
    public synchronized long write(PageBuffer dst, long offset, byte[] src, int srcOffset, int length) {
        return hostCopy(dst, offset, Pointer.to(src).withByteOffset(srcOffset), length, true);
    }

    @Override
    public synchronized long write(PageBuffer dst, long offset, ByteBuffer src) {
        int length = src.remaining();
        long crossed = hostCopy(dst, offset, Pointer.toBuffer(src), length, true);
        src.position(src.position() + length);
        return crossed;
    }

    @Override
    public synchronized long read(PageBuffer src, long offset, int length, byte[] dst, int dstOffset) {
        return hostCopy(src, offset, Pointer.to(dst).withByteOffset(dstOffset), length, false);
    }

    @Override
    public synchronized long read(PageBuffer src, long offset, ByteBuffer dst) {
        int length = dst.remaining();
        long crossed = hostCopy(src, offset, Pointer.toBuffer(dst), length, false);
        dst.position(dst.position() + length);
        return crossed;
    }

    /**
     * Bytes {@code [offset, offset + length)} of {@code buffer} from ({@code toDevice}) or to
     * {@code host}, after the range check; returns the bytes that crossed (none for pinned memory).
     */
    private long hostCopy(PageBuffer buffer, long offset, Pointer host, int length, boolean toDevice) {
        DeviceBuffer b = own(buffer);
        ByteRangeException.check(b, offset, length);
        current();
        try {
            if (toDevice) {
                cuMemcpyHtoD(b.address.withByteOffset(offset), host, length);
            } else {
                cuMemcpyDtoH(host, b.address.withByteOffset(offset), length);
            }
        } catch (RuntimeException e) {
            throw new CudaCopyException((toDevice ? "writing" : "reading") + " bytes " + offset + ".." + (offset + length) + " of " + b.label(), e);
        }
        return b.residency() == Residency.DEVICE ? length : 0;
    }

    /** What its stores' host copies of device bytes and page copies between device and pinned buffers crossed. */
    @Override
    public HostTraffic hostTraffic() {
        return traffic;
    }

    /** A view of pinned host memory: writes through it land in the buffer with no copy and no crossing. */
    @Override
    public synchronized ByteBuffer hostView(PageBuffer buffer, long offset, int length) {
        DeviceBuffer b = own(buffer);
        if (b.host == null) {
            throw new NotHostMemoryException(b.label());
        }
        ByteRangeException.check(b, offset, length);
        return b.host.getByteBuffer(offset, length).order(ByteOrder.BIG_ENDIAN);
    }

    @Override
    public synchronized long checksum(PageBuffer src, long offset, int length, Checksum checksum) {
        byte[] staged = new byte[length];
        long crossed = read(src, offset, length, staged, 0);
        checksum.update(staged, 0, length);
        return crossed;
    }

    /**
     * On the device, one launch for them all ({@code crc32c.cu}): no page byte crosses to the host.
     * The buffers are resolved under the memory's lock; the launch runs outside it, on a checksum
     * lane's stream, so that several callers' checks run side by side.
     */
    @Override
    public int[] crc32c(List<PageBuffer> buffers, long[] pages) {
        long[] bases = new long[buffers.size()];
        int[] sizes = new int[bases.length];
        synchronized (this) {
            for (int b = 0; b < bases.length; b++) {
                DeviceBuffer d = own(buffers.get(b));
                PageLists.check(d.label(), pages, d.pages());
                bases[b] = d.address.address();
                sizes[b] = d.pageBytes();
            }
            current();
            crcs.begin();
        }
        return onLane(c -> c.crc32c(bases, new long[bases.length], sizes, pages, pages),
                () -> "checksumming " + pages.length + " pages of " + bases.length + " buffers");
    }

    /**
     * Every copy checked (one run of pages) and every buffer resolved before anything moves, then
     * the checksum kernel, which copies each page as it reads it, and the join ({@code crc32c.cu}):
     * one launch for the batch.
     */
    @Override
    public int[] copyPagesChecked(List<PageCopy> copies) {
        PageCopies.checkOneRun(copies);
        long[] from = new long[copies.size()];
        long[] to = new long[from.length];
        int[] sizes = new int[from.length];
        synchronized (this) {
            for (int i = 0; i < from.length; i++) {
                from[i] = own(copies.get(i).src()).address.address();
                to[i] = own(copies.get(i).dst()).address.address();
                sizes[i] = copies.get(i).src().pageBytes();
            }
            if (copies.isEmpty()) {
                return new int[0];
            }
            current();
            crcs.begin();
        }
        PageCopy lists = copies.get(0);
        return onLane(c -> c.crc32c(from, to, sizes, lists.srcPages(), lists.dstPages()),
                () -> "copying and checksumming " + lists.srcPages().length + " pages of " + from.length + " buffer pairs");
    }

    /** How many checksum lanes calls have needed at once so far. */
    int checksumLanes() {
        return crcs.made();
    }

    /** Runs a checksum call on a lane; the caller began it under the lock, this thread made current in the device's context. */
    private int[] onLane(Function<CrcLaunches, int[]> call, Supplier<String> what) {
        try {
            return crcs.run(call);
        } catch (RuntimeException e) {
            throw new CudaCopyException(what.get(), e);
        }
    }

    @Override
    public synchronized long copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        return calls.components(List.of(src), srcPages, List.of(dst), dstPages);
    }

    /** Every copy checked, then one launch over a device-side table of them all ({@link PageCopyCalls#batch}). */
    @Override
    public synchronized long copyPages(List<PageCopy> batch) {
        return calls.batch(batch);
    }

    /** Copies the same pages of up to four components (MLA latent, indexer pages) in one launch. {@return the bytes that crossed} */
    public synchronized long copyComponents(List<PageBuffer> src, long[] srcPages, List<PageBuffer> dst, long[] dstPages) {
        return calls.components(src, srcPages, dst, dstPages);
    }

    /** The batch checked now and its table kept on the device, so each run is one launch and one wait ({@link PageCopyCalls#prepare}). */
    @Override
    public synchronized Prepared prepare(List<PageCopy> batch) {
        return calls.prepare(batch);
    }

    /**
     * A zeroed device buffer made with CUDA's virtual memory management ({@code cuMemCreate}), so
     * another process can open it by a POSIX descriptor, alone or side by side with others in one
     * range ({@link #importSideBySide}).
     */
    @Override
    public synchronized PageBuffer allocateShared(String label, long pages, int pageBytes) {
        checkSize(label, pages, pageBytes);
        current();
        return track(shared.allocate(label, pages, pageBytes));
    }

    /**
     * A handle another process on the same machine opens {@code buffer} by: for a shareable buffer
     * ({@link #allocateShared}) this process's id, a POSIX descriptor of the allocation (kept open
     * while the buffer lives) and its size; for any other device buffer a CUDA IPC handle (64 bytes).
     */
    @Override
    public synchronized byte[] exportBuffer(PageBuffer buffer) {
        DeviceBuffer b = own(buffer);
        current();
        return shared.export(b);
    }

    /**
     * Opens another process's device buffer by its handle: a shareable allocation's descriptor is
     * duplicated from the exporting process ({@code pidfd_getfd}) and mapped into a range of this
     * process; a CUDA IPC handle is opened with peer access enabled lazily across GPUs.
     */
    @Override
    public synchronized PageBuffer importBuffer(String label, byte[] handle, long pages, int pageBytes) {
        checkSize(label, pages, pageBytes);
        if (SharedHandle.is(handle)) {
            return importSideBySide(label, List.of(handle), pages, pageBytes, sideBySideStride(pages, pageBytes));
        }
        current();
        return track(shared.openIpc(label, handle, pages, pageBytes));
    }

    /** Pages per stride: a multiple of the allocation granularity in bytes for every page size, covering {@code pagesEach}. */
    @Override
    public synchronized long sideBySideStride(long pagesEach, int... pageBytes) {
        current();
        return shared.stride(pagesEach, pageBytes);
    }

    /**
     * Opens shareable buffers of other processes side by side in one range of this process:
     * buffer {@code i}'s page {@code k} is page {@code i·stride + k} of the result; the range is
     * released when the result is freed. The virtual view of every rank's pool: read in place.
     */
    @Override
    public synchronized PageBuffer importSideBySide(String label, List<byte[]> handles, long pagesEach, int pageBytes, long stride) {
        checkSize(label, pagesEach, pageBytes);
        current();
        return track(shared.openSideBySide(label, handles, pagesEach, pageBytes, stride));
    }

    /** The cuda task-graph device of the same ordinal: its arrays live in this memory's context. */
    @Override
    public boolean reaches(Device kernels) {
        return "cuda".equals(kernels.backend()) && kernels.index() == device.ordinal();
    }

    @Override
    public synchronized void storeRows(DeviceRows rowsIn, RowGeometry g, List<PageBuffer> mla, List<PageBuffer> index, long[] writes, int count) {
        List<DeviceBuffer> m = mla.stream().map(this::own).toList();
        List<DeviceBuffer> x = index.stream().map(this::own).toList();
        current();
        try {
            rows.store(rowsIn, g, m, x, writes, count);
        } catch (RuntimeException e) {
            throw new CudaCopyException("storing " + count + " rows into " + mla.size() + " stores (first " + mla.getFirst().label() + ")", e);
        }
    }

    @Override
    public synchronized void readIndexKeys(PageBuffer index, long[] pages, int keys, RowGeometry g, DeviceRegion codes, DeviceRegion scales) {
        DeviceBuffer src = own(index);
        current();
        try {
            rows.indexKeys(src, pages, keys, g, codes, scales);
        } catch (RuntimeException e) {
            throw new CudaCopyException("reading " + keys + " index keys of " + index.label(), e);
        }
    }

    @Override
    public synchronized void readKeyRows(PageBuffer mla, long[] pages, long[] positions, RowGeometry g, DeviceRegion out) {
        DeviceBuffer src = own(mla);
        current();
        try {
            rows.keyRows(src, pages, positions, g, out);
        } catch (RuntimeException e) {
            throw new CudaCopyException("reading " + positions.length + " key rows of " + mla.label(), e);
        }
    }

    /** Free device memory as the driver reports it ({@code cuMemGetInfo}). */
    public synchronized long freeDeviceBytes() {
        current();
        return device.freeBytes();
    }

    /** Buffers still allocated (freed at {@link #close()}). */
    public synchronized int liveBuffers() {
        return live.size();
    }

    @Override
    public synchronized void free(PageBuffer buffer) {
        DeviceBuffer b = own(buffer);
        current();
        crcs.awaitIdle(); // no checksum call reads or writes a buffer while one is freed
        b.release();
        live.remove(b);
        b.heldBy = null;
    }

    /** Frees every buffer still allocated and the stream; the device's context stays with the process. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        if (crcs != null) { // null when the kernels failed to load
            crcs.awaitIdle();
        }
        closed = true;
        try {
            device.makeCurrent();
            for (DeviceBuffer b : live) {
                b.release();
                b.heldBy = null;
            }
            live.clear();
            if (calls != null) {
                calls.close();
            }
            if (crcs != null) {
                crcs.close();
            }
            stream.close();
        } catch (RuntimeException e) {
            throw new CudaCopyException("closing the CUDA page memory", e);
        }
    }

    private DeviceBuffer track(DeviceBuffer b) {
        live.add(b);
        b.heldBy = this;
        return b;
    }

    DeviceBuffer own(PageBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (!(buffer instanceof DeviceBuffer d) || d.heldBy != this) {
            throw new ForeignBufferException(buffer.label(), "cuda");
        }
        return d;
    }

    void current() {
        if (closed) {
            throw new IllegalStateException("the CUDA page memory is closed");
        }
        device.makeCurrent();
    }

    private static void checkSize(String label, long pages, int pageBytes) {
        if (pages < 0 || pageBytes < 1) {
            throw new IllegalArgumentException(label + ": pages must be >= 0 and pageBytes >= 1, were " + pages + ", " + pageBytes);
        }
    }
}
