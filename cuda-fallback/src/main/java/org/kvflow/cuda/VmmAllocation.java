package org.kvflow.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Device memory through CUDA's virtual memory management: physical allocations made with
 * {@code cuMemCreate} so they can be exported as POSIX descriptors, and address ranges
 * ({@code cuMemAddressReserve}) where one or several allocations are mapped side by side
 * ({@code cuMemMap}, {@code cuMemSetAccess}). What a rank's shareable pool and the coordinator's
 * virtual view of every rank's pool are made of. Called through the JDK's foreign-function API on
 * the driver library JCuda loaded (JCuda 12.0's marshalling of {@code CUmemAllocationProp} leaves
 * fields the driver now checks), with the structs laid out and zeroed here. The caller holds the
 * memory's lock and has made its context current.
 */
final class VmmAllocation {
    private static final int PINNED = 1;
    private static final int POSIX_FD = 1;
    private static final int LOCATION_DEVICE = 1;
    private static final int READ_WRITE = 3;
    private static final long PROP_BYTES = 32;
    private static final long ACCESS_BYTES = 12;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup CUDA = SymbolLookup.libraryLookup("libcuda.so.1", Arena.global());
    private static final ValueLayout.OfLong SIZE = ValueLayout.JAVA_LONG;
    private static final MethodHandle GRANULARITY = fn("cuMemGetAllocationGranularity", ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT);
    private static final MethodHandle CREATE = fn("cuMemCreate", ValueLayout.ADDRESS, SIZE, ValueLayout.ADDRESS, ValueLayout.JAVA_LONG);
    private static final MethodHandle RESERVE = fn("cuMemAddressReserve", ValueLayout.ADDRESS, SIZE, SIZE, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final MethodHandle MAP = fn("cuMemMap", ValueLayout.JAVA_LONG, SIZE, SIZE, ValueLayout.JAVA_LONG, ValueLayout.JAVA_LONG);
    private static final MethodHandle SET_ACCESS = fn("cuMemSetAccess", ValueLayout.JAVA_LONG, SIZE, ValueLayout.ADDRESS, SIZE);
    private static final MethodHandle EXPORT = fn("cuMemExportToShareableHandle", ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT,
            ValueLayout.JAVA_LONG);
    private static final MethodHandle IMPORT = fn("cuMemImportFromShareableHandle", ValueLayout.ADDRESS, ValueLayout.JAVA_LONG, ValueLayout.JAVA_INT);
    private static final MethodHandle UNMAP = fn("cuMemUnmap", ValueLayout.JAVA_LONG, SIZE);
    private static final MethodHandle ADDRESS_FREE = fn("cuMemAddressFree", ValueLayout.JAVA_LONG, SIZE);
    private static final MethodHandle RELEASE = fn("cuMemRelease", ValueLayout.JAVA_LONG);

    private VmmAllocation() {}

    private static MethodHandle fn(String name, java.lang.foreign.MemoryLayout... args) {
        return LINKER.downcallHandle(CUDA.find(name).orElseThrow(() -> new IllegalStateException("libcuda has no " + name)),
                FunctionDescriptor.of(ValueLayout.JAVA_INT, args));
    }

    /** A range of {@code bytes} at {@code base} with {@code handles} mapped at {@code offsets}; releasing unmaps and frees them all. */
    record Range(DevicePointer base, long bytes, long[] handles, long[] offsets, long[] sizes) {
        void release() {
            for (int i = 0; i < handles.length; i++) {
                check("cuMemUnmap", call(UNMAP, base.address() + offsets[i], sizes[i]));
                check("cuMemRelease", call(RELEASE, handles[i]));
            }
            check("cuMemAddressFree", call(ADDRESS_FREE, base.address(), bytes));
        }
    }

    /** The first handle of the range (its only one for an allocation of this process). */
    static long firstHandle(Range r) {
        return r.handles()[0];
    }

    private static MemorySegment prop(Arena arena, int ordinal) {
        MemorySegment p = arena.allocate(PROP_BYTES, 8); // zeroed: no metadata, no flags
        p.set(ValueLayout.JAVA_INT, 0, PINNED);
        p.set(ValueLayout.JAVA_INT, 4, POSIX_FD);
        p.set(ValueLayout.JAVA_INT, 8, LOCATION_DEVICE);
        p.set(ValueLayout.JAVA_INT, 12, ordinal);
        return p;
    }

    /** The size allocations and mapping offsets must be multiples of. */
    static long granularity(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_LONG);
            check("cuMemGetAllocationGranularity", call(GRANULARITY, out, prop(arena, ordinal), 0));
            return out.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    static long roundUp(long bytes, long unit) {
        return Math.max(unit, (bytes + unit - 1) / unit * unit);
    }

    /** A new physical allocation of at least {@code bytes}, mapped read-write in a range of its own. */
    static Range create(int ordinal, long bytes) {
        long size = roundUp(bytes, granularity(ordinal));
        long handle;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_LONG);
            check("cuMemCreate of " + size + " B", call(CREATE, out, size, prop(arena, ordinal), 0L));
            handle = out.get(ValueLayout.JAVA_LONG, 0);
        }
        try {
            return map(ordinal, size, new long[] {handle}, new long[] {0}, new long[] {size});
        } catch (RuntimeException e) {
            call(RELEASE, handle);
            throw e;
        }
    }

    /** {@code handles} (each of {@code sizes[i]} bytes) mapped read-write at {@code offsets} of one new range of {@code bytes}. */
    static Range map(int ordinal, long bytes, long[] handles, long[] offsets, long[] sizes) {
        long base;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_LONG);
            check("cuMemAddressReserve of " + bytes + " B", call(RESERVE, out, bytes, 0L, 0L, 0L));
            base = out.get(ValueLayout.JAVA_LONG, 0);
            int mapped = 0;
            try {
                MemorySegment access = arena.allocate(ACCESS_BYTES, 4);
                access.set(ValueLayout.JAVA_INT, 0, LOCATION_DEVICE);
                access.set(ValueLayout.JAVA_INT, 4, ordinal);
                access.set(ValueLayout.JAVA_INT, 8, READ_WRITE);
                for (int i = 0; i < handles.length; i++) {
                    check("cuMemMap", call(MAP, base + offsets[i], sizes[i], 0L, handles[i], 0L));
                    mapped++;
                    check("cuMemSetAccess", call(SET_ACCESS, base + offsets[i], sizes[i], access, 1L));
                }
            } catch (RuntimeException e) {
                for (int i = 0; i < mapped; i++) {
                    call(UNMAP, base + offsets[i], sizes[i]);
                }
                call(ADDRESS_FREE, base, bytes);
                throw e;
            }
        }
        return new Range(new DevicePointer(base), bytes, handles, offsets, sizes);
    }

    /** A POSIX descriptor of {@code handle} (this process's; another process duplicates it with {@link Descriptors}). */
    static int export(long handle) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment fd = arena.allocate(ValueLayout.JAVA_INT);
            check("cuMemExportToShareableHandle", call(EXPORT, fd, handle, POSIX_FD, 0L));
            return fd.get(ValueLayout.JAVA_INT, 0);
        }
    }

    /** The allocation behind descriptor {@code fd} of this process. */
    static long importDescriptor(int fd) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_LONG);
            check("cuMemImportFromShareableHandle", call(IMPORT, out, (long) fd, POSIX_FD)); // the descriptor travels as the void* value
            return out.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /** Releases an allocation handle that is not mapped. */
    static void release(long handle) {
        call(RELEASE, handle);
    }

    private static int call(MethodHandle f, Object... args) {
        try {
            return (int) f.invokeWithArguments(args);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("a CUDA driver call failed", e);
        }
    }

    private static void check(String what, int result) {
        if (result != 0) {
            throw new CudaCopyException(what, result);
        }
    }
}
