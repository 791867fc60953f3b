package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRelease;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuIpcCloseMemHandle;
import static jcuda.driver.JCudaDriver.cuIpcGetMemHandle;
import static jcuda.driver.JCudaDriver.cuIpcOpenMemHandle;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemcpyAsync;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoD;
import static jcuda.driver.JCudaDriver.cuMemcpyHtoDAsync;
import static jcuda.driver.JCudaDriver.cuMemsetD8;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;
import static jcuda.driver.JCudaDriver.cuModuleUnload;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.zip.Checksum;
import jcuda.Pointer;
import jcuda.Sizeof;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUfunction;
import jcuda.driver.CUipcMemHandle;
import jcuda.driver.CUipcMem_flags;
import jcuda.driver.CUmodule;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.pages.ByteRangeException;
import org.kvflow.kernels.rows.DeviceRows;
import org.kvflow.kernels.rows.RowGeometry;
import org.kvflow.pages.ForeignBufferException;
import org.kvflow.pages.HostTraffic;
import org.kvflow.pages.MemoryUnavailableException;
import org.kvflow.pages.OutOfDeviceMemoryException;
import org.kvflow.pages.NotHostMemoryException;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageCopies;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.Residency;
import org.kvflow.kernels.rows.DeviceRowAccess;
import org.kvflow.pages.BufferExport;
import org.kvflow.pages.BufferImport;
import org.kvflow.pages.SideBySideViews;

/**
 * The {@code cuda} page memory: device and pinned host buffers on one CUDA context (the device's primary context) and one stream.
 * Copies run the hand-written kernels (16-byte accesses when every page size allows, one block per
 * quarter page, two loads in flight per thread), also to and from pinned host memory, which is mapped into the
 * device's address space; {@link #copyPagesDma} is the DMA alternative. Each call synchronises its
 * stream once before returning. Page lists are staged in one reusable pinned buffer and uploaded
 * asynchronously, so a copy costs one small DMA and one launch. Every buffer is freed in
 * {@link #close()}. Thread-safe: calls are serialized (pipeline stages on different threads share one memory).
 */
public final class CudaPageMemory implements PageMemory, BufferExport, BufferImport, SideBySideViews, DeviceRowAccess {
    private static final int BLOCK = 128;
    /** Blocks per page: each block copies a quarter page (bench/device/copy_variants.cu). */
    private static final int SLICES = 4;
    /** KV components one launch can move (the kernels take four base pairs). */
    public static final int MAX_COMPONENTS = 4;
    /** Buffer pairs one table launch can move (grid.y). */
    private static final int MAX_TABLE_ROWS = 65_535;

    private final CUdevice device = new CUdevice();
    private final CUcontext context = new CUcontext();
    private final CUstream stream = new CUstream();
    private final List<CUmodule> modules = new ArrayList<>();
    private final CUfunction copyV4;
    private final CUfunction copyTableV4;
    private final CUfunction copyU8;
    private final CUfunction storeRows;
    private final CUfunction indexKeys;
    private final CUfunction keyRows;
    private final int ordinal;
    private final String deviceName;
    private final int multiprocessors;
    private final Set<DeviceBuffer> live = new LinkedHashSet<>();
    private final HostTraffic traffic = new HostTraffic();
    /** Page lists travel through this pinned buffer into {@link #scratch}; both grow on demand. */
    private final Pointer staging = new Pointer();
    private final CUdeviceptr scratch = new CUdeviceptr();
    private long scratchBytes;
    /** The copy table now in {@link #scratch} (its first {@link #uploadedLength} longs; -1: scratch holds something else). */
    private long[] uploaded = new long[0];
    private int uploadedLength = -1;
    /** Where the next copy table is built before it is compared with the uploaded one. */
    private long[] building = new long[0];
    private final CUevent kernelStart = new CUevent();
    private final CUevent kernelStop = new CUevent();
    private float lastKernelMillis = Float.NaN;
    private boolean timeKernels;
    private boolean contextRetained;
    private boolean streamCreated;
    private boolean closed;

    /**
     * Opens device {@code ordinal}.
     *
     * @throws MemoryUnavailableException when the driver library or a device is missing
     */
    public CudaPageMemory(int ordinal) {
        this.ordinal = ordinal;
        try {
            JCudaDriver.setExceptionsEnabled(true);
            cuInit(0);
            cuDeviceGet(device, ordinal);
        } catch (Throwable e) { // UnsatisfiedLinkError without libcuda, CudaException without a device
            throw new MemoryUnavailableException("cuda", "no CUDA driver or device " + ordinal + " (" + e + ")", e);
        }
        try {
            byte[] name = new byte[256];
            cuDeviceGetName(name, name.length, device);
            this.deviceName = new String(name, StandardCharsets.US_ASCII).trim().replace("\0", "");
            int[] sms = new int[1];
            cuDeviceGetAttribute(sms, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
            this.multiprocessors = sms[0];
            cuDevicePrimaryCtxRetain(context, device);
            contextRetained = true;
            cuCtxSetCurrent(context);
            cuStreamCreate(stream, 0);
            streamCreated = true;
            cuEventCreate(kernelStart, 0);
            cuEventCreate(kernelStop, 0);
            this.copyV4 = load(CudaKernels.COPY_PAGES_V4);
            this.copyTableV4 = load(CudaKernels.COPY_PAGES_TABLE_V4);
            this.copyU8 = load(CudaKernels.COPY_PAGES_U8);
            this.storeRows = load(CudaKernels.STORE_ROWS);
            this.indexKeys = load(CudaKernels.INDEX_KEYS);
            this.keyRows = load(CudaKernels.KEY_ROWS);
        } catch (RuntimeException e) {
            CudaCopyException failure = new CudaCopyException("opening CUDA device " + ordinal, e);
            try {
                close();
            } catch (RuntimeException cleanup) {
                failure.addSuppressed(cleanup);
            }
            throw failure;
        }
    }

    private CUfunction load(CudaKernels kernel) {
        CUmodule module = new CUmodule();
        cuModuleLoadData(module, kernel.fatbin());
        modules.add(module);
        CUfunction function = new CUfunction();
        cuModuleGetFunction(function, module, kernel.entry());
        return function;
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public String deviceName() {
        return deviceName;
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
                throw new OutOfDeviceMemoryException(name(), what, pages * pageBytes, freeDeviceBytes(), e);
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
    public synchronized void write(PageBuffer dst, long offset, byte[] src, int srcOffset, int length) {
        hostCopy(dst, offset, Pointer.to(src).withByteOffset(srcOffset), length, true);
    }

    @Override
    public synchronized void write(PageBuffer dst, long offset, ByteBuffer src) {
        int length = src.remaining();
        hostCopy(dst, offset, Pointer.toBuffer(src), length, true);
        src.position(src.position() + length);
    }

    @Override
    public synchronized void read(PageBuffer src, long offset, int length, byte[] dst, int dstOffset) {
        hostCopy(src, offset, Pointer.to(dst).withByteOffset(dstOffset), length, false);
    }

    @Override
    public synchronized void read(PageBuffer src, long offset, ByteBuffer dst) {
        int length = dst.remaining();
        hostCopy(src, offset, Pointer.toBuffer(dst), length, false);
        dst.position(dst.position() + length);
    }

    /** Bytes {@code [offset, offset + length)} of {@code buffer} from ({@code toDevice}) or to {@code host}, after the range check. */
    private void hostCopy(PageBuffer buffer, long offset, Pointer host, int length, boolean toDevice) {
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
        if (b.residency() == Residency.DEVICE) {
            traffic.add(length);
        }
    }

    /** Counts the bytes of {@code pairs} pages copied between a device buffer and a pinned host one. */
    private void countCrossing(DeviceBuffer src, DeviceBuffer dst, long pairs) {
        if ((src.residency() == Residency.DEVICE) != (dst.residency() == Residency.DEVICE)) {
            traffic.add(pairs * src.pageBytes());
        }
    }

    /** Host copies of device bytes ({@code read}, {@code write}, {@code checksum}) and page copies between device and pinned host buffers. */
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
    public synchronized void checksum(PageBuffer src, long offset, int length, Checksum checksum) {
        byte[] staged = new byte[length];
        read(src, offset, length, staged, 0);
        checksum.update(staged, 0, length);
    }

    @Override
    public synchronized void copyPages(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        copyComponents(List.of(src), srcPages, List.of(dst), dstPages);
    }

    /**
     * Every copy checked before anything moves; then, when every page size is a multiple of 16
     * bytes, one launch over a device-side table of all the copies (each with its own page lists);
     * else one launch per copy. A table equal to the one already on the device (the same buffers,
     * sizes and lists: a view gathered again from the same pages) was checked when it was sent,
     * so only its lists' lengths and page sizes are checked again.
     */
    @Override
    public synchronized void copyPages(List<PageCopy> copies) {
        boolean vectors = true;
        List<DeviceBuffer> from = new ArrayList<>();
        List<DeviceBuffer> to = new ArrayList<>();
        for (PageCopy copy : copies) {
            PageCopies.checkShape(copy.src(), copy.srcPages(), copy.dst(), copy.dstPages());
            from.add(own(copy.src()));
            to.add(own(copy.dst()));
            vectors &= copy.src().pageBytes() % 16 == 0;
        }
        if (!vectors || copies.size() > MAX_TABLE_ROWS) {
            PageCopies.checkPairs(copies);
            for (PageCopy copy : copies) {
                copyPages(copy.src(), copy.srcPages(), copy.dst(), copy.dstPages());
            }
            return;
        }
        Table table = buildTable(copies, from, to);
        boolean sent = uploadedLength == table.length() && java.util.Arrays.equals(building, 0, table.length(), uploaded, 0, table.length());
        if (!sent) {
            PageCopies.checkPairs(copies);
        }
        if (table.pairs() == 0) {
            return;
        }
        current();
        try {
            launchTable(table, copies.size(), !sent);
            for (int i = 0; i < copies.size(); i++) {
                countCrossing(from.get(i), to.get(i), copies.get(i).srcPages().length);
            }
        } catch (RuntimeException e) {
            throw new CudaCopyException("copying pages of " + copies.size() + " buffer pairs (first " + copies.getFirst().src().label() + " to "
                    + copies.getFirst().dst().label() + ")", e);
        }
    }

    /** A copy table built in {@link #building}: its length in longs, its distinct page pairs, and the longest row. */
    private record Table(int length, int pairs, int widest) {}

    /** A (source list, destination list) pair of arrays, by identity: each distinct pair goes into the table once. */
    private record Lists(long[] src, long[] dst) {}

    /**
     * The table on the heap, in {@link #building}: page lists (each distinct pair of lists once),
     * per copy its page size in 16-byte units, list offset and pair count, the buffers' addresses,
     * and per copy its buffers' page counts (what the checks depend on, so an equal table needs no
     * new check).
     */
    private Table buildTable(List<PageCopy> copies, List<DeviceBuffer> from, List<DeviceBuffer> to) {
        int rows = copies.size();
        java.util.Map<Lists, Integer> offsets = new java.util.HashMap<>();
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
        return new Table(length, pairs, widest);
    }

    /** Sends the table built in {@link #building} when {@code send} (one asynchronous copy), then one launch and one sync. */
    private void launchTable(Table t, int rows, boolean send) {
        long bytes = (long) t.length() * Sizeof.LONG;
        if (send) {
            ensureScratch(bytes);
            staging.getByteBuffer(0, bytes).order(ByteOrder.nativeOrder()).asLongBuffer().put(building, 0, t.length());
            cuMemcpyHtoDAsync(scratch, staging, bytes, stream);
            long[] swap = uploaded;
            uploaded = building;
            building = swap;
            uploadedLength = t.length();
        }
        long lists = 2L * t.pairs() * Sizeof.LONG;
        CUdeviceptr metaAt = scratch.withByteOffset(lists);
        CUdeviceptr addrsAt = scratch.withByteOffset(lists + 3L * rows * Sizeof.LONG);
        long grid = (long) t.widest() * SLICES;
        if (grid > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(t.widest() + " page pairs exceed one launch (at most " + Integer.MAX_VALUE / SLICES + ")");
        }
        Pointer args = Pointer.to(Pointer.to(addrsAt), Pointer.to(metaAt), Pointer.to(new int[] {rows}), Pointer.to(scratch),
                Pointer.to(scratch.withByteOffset((long) t.pairs() * Sizeof.LONG)), Pointer.to(new int[] {SLICES}));
        timedLaunch(() -> cuLaunchKernel(copyTableV4, (int) grid, rows, 1, BLOCK, 1, 1, 0, stream, args, null));
    }

    /** Runs {@code launch} on the stream and waits for it; between the kernel events when kernels are timed. */
    private void timedLaunch(Runnable launch) {
        if (!timeKernels) {
            launch.run();
            cuStreamSynchronize(stream);
            return;
        }
        cuEventRecord(kernelStart, stream);
        launch.run();
        cuEventRecord(kernelStop, stream);
        cuStreamSynchronize(stream);
        float[] ms = new float[1];
        cuEventElapsedTime(ms, kernelStart, kernelStop);
        lastKernelMillis = ms[0];
    }

    /**
     * Whether each copy kernel is timed alone for {@link #lastKernelMillis} (two events and a query
     * per launch, which a pipeline does not need); off when opened.
     */
    public synchronized void timeKernels(boolean on) {
        timeKernels = on;
    }

    /** Copies the same pages of several components (MLA latent, indexer pages) in one launch. */
    public synchronized void copyComponents(List<PageBuffer> src, long[] srcPages, List<PageBuffer> dst, long[] dstPages) {
        if (src.size() != dst.size() || src.isEmpty()) {
            throw new IllegalArgumentException(src.size() + " source vs " + dst.size() + " destination components");
        }
        if (src.size() > MAX_COMPONENTS) {
            throw new IllegalArgumentException(src.size() + " components in one launch; at most " + MAX_COMPONENTS);
        }
        List<DeviceBuffer> s = new ArrayList<>();
        List<DeviceBuffer> d = new ArrayList<>();
        for (int c = 0; c < src.size(); c++) {
            PageCopies.checkPairs(src.get(c), srcPages, dst.get(c), dstPages);
            s.add(own(src.get(c)));
            d.add(own(dst.get(c)));
        }
        if (srcPages.length == 0) {
            return;
        }
        current();
        try {
            launchCopy(s, srcPages, d, dstPages);
            for (int c = 0; c < s.size(); c++) {
                countCrossing(s.get(c), d.get(c), srcPages.length);
            }
        } catch (RuntimeException e) {
            throw new CudaCopyException("copying " + srcPages.length + " pages (first " + srcPages[0] + " -> " + dstPages[0] + ") of "
                    + s.stream().map(DeviceBuffer::label).toList() + " to " + d.stream().map(DeviceBuffer::label).toList(), e);
        }
    }

    /** The page lists go to the device scratch in one async copy; one launch for up to four buffer pairs; one sync. */
    private void launchCopy(List<DeviceBuffer> src, long[] srcPages, List<DeviceBuffer> dst, long[] dstPages) {
        int n = srcPages.length;
        CUdeviceptr srcList = stage(srcPages, dstPages);
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
        timedLaunch(() -> cuLaunchKernel(vectors ? copyV4 : copyU8, (int) grid, comps, 1, BLOCK, 1, 1, 0, stream, Pointer.to(args), null));
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
        String what = label + " (" + pages + " pages of " + pageBytes + " B, shareable)";
        VmmAllocation.Range range;
        try {
            range = VmmAllocation.create(ordinal, pages * pageBytes);
        } catch (RuntimeException e) {
            if (String.valueOf(e.getMessage()).contains("CUresult 2")) { // CUDA_ERROR_OUT_OF_MEMORY
                throw new OutOfDeviceMemoryException(name(), what, pages * pageBytes, freeDeviceBytes(), e);
            }
            throw new CudaCopyException("allocating " + what, e);
        }
        DeviceBuffer buffer = track(new DeviceBuffer(label, pages, pageBytes, range.base(), false, range));
        cuMemsetD8(range.base(), (byte) 0, pages * pageBytes);
        return buffer;
    }

    /**
     * A handle another process on the same machine opens {@code buffer} by: for a shareable buffer
     * ({@link #allocateShared}) this process's id, a POSIX descriptor of the allocation (kept open
     * while the buffer lives) and its size; for any other device buffer a CUDA IPC handle (64 bytes).
     */
    @Override
    public synchronized byte[] exportBuffer(PageBuffer buffer) {
        DeviceBuffer b = own(buffer);
        if (b.range != null && !b.imported) {
            current();
            if (b.exportedFd < 0) {
                b.exportedFd = VmmAllocation.export(VmmAllocation.firstHandle(b.range));
            }
            return SharedHandle.encode(ProcessHandle.current().pid(), b.exportedFd, b.range.sizes()[0]);
        }
        if (b.host != null || b.imported) {
            throw new IllegalArgumentException(b.label() + ": only device buffers this memory allocated can be exported, not "
                    + (b.imported ? "one opened from another process" : "pinned host memory"));
        }
        current();
        CUipcMemHandle handle = new CUipcMemHandle();
        try {
            cuIpcGetMemHandle(handle, b.address);
        } catch (RuntimeException e) {
            throw new CudaCopyException("exporting " + b.label(), e);
        }
        return IpcHandles.bytes(handle);
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
        if (handle.length != IpcHandles.BYTES) {
            throw new IllegalArgumentException(label + ": a CUDA IPC handle has " + IpcHandles.BYTES + " bytes, not " + handle.length);
        }
        current();
        CUipcMemHandle h = IpcHandles.of(handle);
        DevicePointer ptr = new DevicePointer();
        try {
            cuIpcOpenMemHandle(ptr, h, CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
        } catch (RuntimeException e) {
            throw new CudaCopyException("opening " + label + " from another process's handle", e);
        }
        return track(new DeviceBuffer(label, pages, pageBytes, Residency.DEVICE, ptr, null, true));
    }

    /** Pages per stride: a multiple of the allocation granularity in bytes for every page size, covering {@code pagesEach}. */
    @Override
    public synchronized long sideBySideStride(long pagesEach, int... pageBytes) {
        current();
        long granularity = VmmAllocation.granularity(ordinal);
        long unit = 1;
        for (int bytes : pageBytes) {
            long pagesPerUnit = granularity / gcd(bytes, granularity); // pages whose bytes are a multiple of the granularity
            unit = unit / gcd(unit, pagesPerUnit) * pagesPerUnit;
        }
        return VmmAllocation.roundUp(pagesEach, unit);
    }

    /**
     * Opens shareable buffers of other processes side by side in one range of this process:
     * buffer {@code i}'s page {@code k} is page {@code i·stride + k} of the result. Each descriptor
     * is duplicated from its process ({@code pidfd_getfd}), imported and closed; the range is
     * released when the result is freed. The virtual view of every rank's pool: read in place.
     */
    @Override
    public synchronized PageBuffer importSideBySide(String label, List<byte[]> handles, long pagesEach, int pageBytes, long stride) {
        checkSize(label, pagesEach, pageBytes);
        if (stride < pagesEach) {
            throw new IllegalArgumentException(label + ": a stride of " + stride + " pages cannot hold " + pagesEach);
        }
        current();
        long strideBytes = stride * pageBytes;
        if (strideBytes % VmmAllocation.granularity(ordinal) != 0) {
            throw new IllegalArgumentException(label + ": a stride of " + strideBytes + " B is not a multiple of the allocation granularity "
                    + VmmAllocation.granularity(ordinal));
        }
        List<Long> opened = new ArrayList<>();
        long[] sizes = new long[handles.size()];
        long[] offsets = new long[handles.size()];
        try {
            for (int i = 0; i < handles.size(); i++) {
                SharedHandle h = SharedHandle.decode(handles.get(i));
                if (h.size() < pagesEach * pageBytes || h.size() > strideBytes) {
                    throw new IllegalArgumentException(label + ": shared allocation " + i + " holds " + h.size() + " bytes; " + pagesEach
                            + " pages of " + pageBytes + " B need at least " + pagesEach * pageBytes + " and the stride allows " + strideBytes);
                }
                int fd = Descriptors.fromProcess(h.pid(), h.fd());
                try {
                    opened.add(VmmAllocation.importDescriptor(fd));
                } finally {
                    Descriptors.close(fd);
                }
                sizes[i] = h.size();
                offsets[i] = i * strideBytes;
            }
            VmmAllocation.Range range = VmmAllocation.map(ordinal, strideBytes * handles.size(),
                    opened.stream().mapToLong(Long::longValue).toArray(), offsets, sizes);
            return track(new DeviceBuffer(label, stride * handles.size(), pageBytes, range.base(), true, range));
        } catch (RuntimeException e) {
            opened.forEach(VmmAllocation::release);
            throw e instanceof IllegalArgumentException ? e : new CudaCopyException("opening " + label + " from other processes' allocations", e);
        }
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }

    /** The cuda task-graph device of the same ordinal: its arrays share this memory's primary context. */
    @Override
    public boolean reaches(Device kernels) {
        return "cuda".equals(kernels.backend()) && kernels.index() == ordinal;
    }

    /** The write table, then per store its MLA and indexer buffer addresses, in one upload; one launch of a block per write. */
    @Override
    public synchronized void storeRows(DeviceRows rows, RowGeometry g, List<PageBuffer> mla, List<PageBuffer> index, long[] writes, int count) {
        int stores = mla.size();
        long[] table = java.util.Arrays.copyOf(writes, 3 * count + 2 * stores);
        for (int s = 0; s < stores; s++) {
            table[3 * count + s] = own(mla.get(s)).address.address();
            table[3 * count + stores + s] = own(index.get(s)).address.address();
        }
        current();
        try {
            CUdeviceptr at = stage(table);
            Pointer args = Pointer.to(region(rows.latentCodes()), region(rows.latentScales()), region(rows.latent()), region(rows.rope()),
                    region(rows.indexCodes()), region(rows.indexScales()), Pointer.to(at), ints(count), ints(stores), ints(g.latent()),
                    ints(g.rope()), ints(g.index()), ints(g.pageSize()), ints(g.rowBytes()), ints(g.scaleOffset()), ints(g.ropeOffset()),
                    ints(g.fp8() ? 1 : 0));
            timedLaunch(() -> cuLaunchKernel(storeRows, count, 1, 1, BLOCK, 1, 1, 0, stream, args, null));
        } catch (RuntimeException e) {
            throw new CudaCopyException("storing " + count + " rows into " + stores + " stores (first " + mla.getFirst().label() + ")", e);
        }
    }

    @Override
    public synchronized void readIndexKeys(PageBuffer index, long[] pages, int keys, RowGeometry g, DeviceRegion codes, DeviceRegion scales) {
        DeviceBuffer src = own(index);
        current();
        try {
            CUdeviceptr at = stage(pages);
            Pointer args = Pointer.to(Pointer.to(src.address), Pointer.to(at), ints(keys), ints(g.pageSize()), ints(g.index()), region(codes),
                    region(scales));
            timedLaunch(() -> cuLaunchKernel(indexKeys, keys, 1, 1, BLOCK, 1, 1, 0, stream, args, null));
        } catch (RuntimeException e) {
            throw new CudaCopyException("reading " + keys + " index keys of " + index.label(), e);
        }
    }

    @Override
    public synchronized void readKeyRows(PageBuffer mla, long[] pages, long[] positions, RowGeometry g, DeviceRegion out) {
        DeviceBuffer src = own(mla);
        current();
        try {
            CUdeviceptr at = stage(pages, positions);
            Pointer args = Pointer.to(Pointer.to(src.address), Pointer.to(at), Pointer.to(at.withByteOffset((long) pages.length * Sizeof.LONG)),
                    ints(g.latent()), ints(g.rope()), ints(g.pageSize()), ints(g.rowBytes()), ints(g.scaleOffset()), ints(g.ropeOffset()),
                    ints(g.fp8() ? 1 : 0), region(out));
            timedLaunch(() -> cuLaunchKernel(keyRows, positions.length, 1, 1, BLOCK, 1, 1, 0, stream, args, null));
        } catch (RuntimeException e) {
            throw new CudaCopyException("reading " + positions.length + " key rows of " + mla.label(), e);
        }
    }

    /**
     * {@code parts}, one after the other, into the device scratch through the pinned staging buffer
     * (one asynchronous copy on the stream); returns where the first lies, the others following it.
     */
    private CUdeviceptr stage(long[]... parts) {
        long longs = 0;
        for (long[] part : parts) {
            longs += part.length;
        }
        long bytes = longs * Sizeof.LONG;
        ensureScratch(Math.max(Sizeof.LONG, bytes));
        uploadedLength = -1; // the parts overwrite the copy table in scratch
        java.nio.LongBuffer out = staging.getByteBuffer(0, Math.max(Sizeof.LONG, bytes)).order(ByteOrder.nativeOrder()).asLongBuffer();
        for (long[] part : parts) {
            out.put(part);
        }
        cuMemcpyHtoDAsync(scratch, staging, bytes, stream);
        return scratch;
    }

    private static Pointer region(DeviceRegion r) {
        return Pointer.to(new DevicePointer(r.address()));
    }

    private static Pointer ints(int v) {
        return Pointer.to(new int[] {v});
    }

    /** Grows the pinned staging buffer and the device scratch to hold {@code bytes} of page lists. */
    private void ensureScratch(long bytes) {
        if (bytes <= scratchBytes) {
            return;
        }
        long size = Math.max(bytes, 1 << 20);
        uploadedLength = -1;
        if (scratchBytes > 0) {
            cuMemFree(scratch);
            cuMemFreeHost(staging);
            scratchBytes = 0;
        }
        cuMemAlloc(scratch, size);
        cuMemHostAlloc(staging, size, 0);
        scratchBytes = size;
    }

    /**
     * The same copy as DMA instead of a kernel: one {@code cuMemcpyAsync} per run of pages contiguous
     * on both sides (unified addresses, so host and device buffers mix). Best for long runs; the
     * kernel path is best for scattered pages.
     */
    public synchronized void copyPagesDma(PageBuffer src, long[] srcPages, PageBuffer dst, long[] dstPages) {
        PageCopies.checkPairs(src, srcPages, dst, dstPages);
        DeviceBuffer s = own(src);
        DeviceBuffer d = own(dst);
        current();
        try {
            copyRuns(s, srcPages, d, dstPages);
            cuStreamSynchronize(stream);
            countCrossing(s, d, srcPages.length);
        } catch (RuntimeException e) {
            throw new CudaCopyException("DMA copy of " + srcPages.length + " pages of " + s.label() + " to " + d.label(), e);
        }
    }

    private void copyRuns(DeviceBuffer src, long[] srcPages, DeviceBuffer dst, long[] dstPages) {
        int bytes = src.pageBytes();
        int start = 0;
        for (int i = 1; i <= srcPages.length; i++) {
            if (i == srcPages.length || srcPages[i] != srcPages[i - 1] + 1 || dstPages[i] != dstPages[i - 1] + 1) {
                cuMemcpyAsync(dst.at(dstPages[start]), src.at(srcPages[start]), (long) (i - start) * bytes, stream);
                start = i;
            }
        }
    }

    /** One plain copy of a whole buffer: the contiguous baseline the page copies are measured against. */
    public synchronized void copyWhole(PageBuffer src, PageBuffer dst) {
        DeviceBuffer s = own(src);
        DeviceBuffer d = own(dst);
        if (s.bytes() != d.bytes()) {
            throw new IllegalArgumentException("buffers differ in size: " + s.bytes() + " vs " + d.bytes());
        }
        current();
        try {
            cuMemcpyAsync(d.address, s.address, s.bytes(), stream);
            cuStreamSynchronize(stream);
            countCrossing(s, d, s.pages());
        } catch (RuntimeException e) {
            throw new CudaCopyException("copying " + s.label() + " to " + d.label(), e);
        }
    }

    /** Device time of {@code work} (which must use this memory), measured with CUDA events on its stream. */
    public synchronized float timeMillis(Runnable work) {
        current();
        CUevent start = new CUevent();
        CUevent stop = new CUevent();
        cuEventCreate(start, 0);
        cuEventCreate(stop, 0);
        try {
            cuEventRecord(start, stream);
            work.run();
            cuEventRecord(stop, stream);
            cuEventSynchronize(stop);
            float[] ms = new float[1];
            cuEventElapsedTime(ms, start, stop);
            return ms[0];
        } finally {
            cuEventDestroy(start);
            cuEventDestroy(stop);
        }
    }

    /** Device time of the last timed copy kernel alone (CUDA events around the launch, see {@link #timeKernels}); NaN before the first. */
    public synchronized float lastKernelMillis() {
        return lastKernelMillis;
    }

    /** Free device memory as the driver reports it ({@code cuMemGetInfo}). */
    public synchronized long freeDeviceBytes() {
        current();
        long[] free = new long[1];
        long[] total = new long[1];
        cuMemGetInfo(free, total);
        return free[0];
    }

    /** Buffers still allocated (freed at {@link #close()}). */
    public synchronized int liveBuffers() {
        return live.size();
    }

    @Override
    public synchronized void free(PageBuffer buffer) {
        DeviceBuffer b = own(buffer);
        current();
        release(b);
        live.remove(b);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            cuCtxSetCurrent(context);
            for (DeviceBuffer b : live) {
                release(b);
            }
            live.clear();
            if (scratchBytes > 0) {
                cuMemFree(scratch);
                cuMemFreeHost(staging);
                scratchBytes = 0;
            }
            for (CUmodule module : modules) {
                cuModuleUnload(module);
            }
            if (streamCreated) {
                cuEventDestroy(kernelStart);
                cuEventDestroy(kernelStop);
                cuStreamDestroy(stream);
            }
            if (contextRetained) {
                cuDevicePrimaryCtxRelease(device);
            }
        } catch (RuntimeException e) {
            throw new CudaCopyException("closing the CUDA page memory", e);
        }
    }

    private static void release(DeviceBuffer b) {
        if (b.freed) {
            return;
        }
        b.freed = true;
        if (b.range != null) {
            b.range.release();
            if (b.exportedFd >= 0) {
                Descriptors.close(b.exportedFd);
            }
        } else if (b.host != null) {
            cuMemFreeHost(b.host);
        } else if (b.imported) {
            cuIpcCloseMemHandle(b.address);
        } else {
            cuMemFree(b.address);
        }
    }

    private DeviceBuffer track(DeviceBuffer b) {
        live.add(b);
        return b;
    }

    private DeviceBuffer own(PageBuffer buffer) {
        Objects.requireNonNull(buffer, "buffer");
        if (!(buffer instanceof DeviceBuffer d) || !live.contains(d)) {
            throw new ForeignBufferException(buffer.label(), "cuda");
        }
        return d;
    }

    private void current() {
        if (closed) {
            throw new IllegalStateException("the CUDA page memory is closed");
        }
        cuCtxSetCurrent(context);
    }

    private static void checkSize(String label, long pages, int pageBytes) {
        if (pages < 0 || pageBytes < 1) {
            throw new IllegalArgumentException(label + ": pages must be >= 0 and pageBytes >= 1, were " + pages + ", " + pageBytes);
        }
    }
}
