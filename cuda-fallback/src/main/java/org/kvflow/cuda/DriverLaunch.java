package org.kvflow.cuda;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.reflect.Method;
import jcuda.NativePointerObject;
import jcuda.driver.CUfunction;
import jcuda.driver.CUstream;

/**
 * One kernel's launches on one stream through {@code cuLaunchKernel} called by the JDK's
 * foreign-function API, its arguments in a native block that every launch reuses: the caller
 * sets the values that changed, the block of pointers to them stays. JCuda marshals a launch's
 * argument pointers anew each time, which costs a page copy's call several microseconds before
 * the kernel starts (docs/benchmarks.md, "The materialize call by its parts"). Not thread-safe:
 * its memory serializes calls; the memory's context must be current.
 */
final class DriverLaunch implements AutoCloseable {
    private static final MethodHandle LAUNCH = Linker.nativeLinker().downcallHandle(
            SymbolLookup.libraryLookup("libcuda.so.1", Arena.global()).find("cuLaunchKernel")
                    .orElseThrow(() -> new IllegalStateException("libcuda has no cuLaunchKernel")),
            FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT,
                    ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS,
                    ValueLayout.ADDRESS));
    /** JCuda keeps a handle's address behind a protected getter. */
    private static final Method NATIVE_POINTER = nativePointerGetter();

    private final String kernel;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment function;
    private final MemorySegment stream;
    /** {@code args} pointers, the i-th to the i-th 8-byte value slot. */
    private final MemorySegment pointers;
    private final MemorySegment values;

    /**
     * @param kernel   the kernel's name, for errors
     * @param function its handle, from the device's loaded module
     * @param stream   the stream it is launched on
     * @param args     how many arguments it takes
     */
    DriverLaunch(String kernel, CUfunction function, CUstream stream, int args) {
        this.kernel = kernel;
        this.function = MemorySegment.ofAddress(address(function));
        this.stream = MemorySegment.ofAddress(address(stream));
        this.pointers = arena.allocate(ValueLayout.ADDRESS, args);
        this.values = arena.allocate(ValueLayout.JAVA_LONG, args);
        for (int i = 0; i < args; i++) {
            pointers.setAtIndex(ValueLayout.ADDRESS, i, values.asSlice(8L * i, 8));
        }
    }

    /** Sets argument {@code i} to a 64-bit value (a device address, a pointer-sized count). */
    DriverLaunch set(int i, long value) {
        values.setAtIndex(ValueLayout.JAVA_LONG, i, value);
        return this;
    }

    /** Sets argument {@code i} to a 32-bit {@code int}. */
    DriverLaunch setInt(int i, int value) {
        values.set(ValueLayout.JAVA_INT, 8L * i, value);
        return this;
    }

    /**
     * Enqueues the kernel on the stream with the arguments as set, a grid of {@code gridX × gridY}
     * blocks of {@code block} threads.
     *
     * @throws CudaCopyException naming the kernel and the driver's result if the launch is refused
     */
    void launch(int gridX, int gridY, int block) {
        int result;
        try {
            result = (int) LAUNCH.invokeExact(function, gridX, gridY, 1, block, 1, 1, 0, stream, pointers, MemorySegment.NULL);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable e) {
            throw new IllegalStateException("cuLaunchKernel of " + kernel + " failed", e);
        }
        if (result != 0) {
            throw new CudaCopyException("launching " + kernel + " (" + gridX + " × " + gridY + " blocks of " + block + ")", result);
        }
    }

    @Override
    public void close() {
        arena.close();
    }

    private static long address(NativePointerObject handle) {
        try {
            return (long) NATIVE_POINTER.invoke(handle);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot read a JCuda handle's address", e);
        }
    }

    private static Method nativePointerGetter() {
        try {
            Method m = NativePointerObject.class.getDeclaredMethod("getNativePointer");
            m.setAccessible(true);
            return m;
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("JCuda's NativePointerObject has no getNativePointer", e);
        }
    }
}
