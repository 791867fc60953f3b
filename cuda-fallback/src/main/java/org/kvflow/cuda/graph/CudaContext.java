package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.function.Supplier;
import jcuda.CudaException;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import org.jspecify.annotations.Nullable;
import org.kvflow.cuda.CudaDevice;
import org.kvflow.cuda.DevicePointer;

/**
 * One CUDA device as the task graphs of this process share it: the {@link CudaDevice} (context and
 * modules, shared with the page memory), the buffers graphs allocated there, and the arrays plans
 * persisted on the device for a later plan to consume. Thread-safe.
 */
final class CudaContext {
    private static final Map<Integer, CudaContext> OPEN = new HashMap<>();

    private final CudaDevice device;
    private final Map<Object, DeviceArray> resident = new IdentityHashMap<>();
    /** Bytes of every buffer allocated here and not yet freed, by allocation. */
    private final Map<CUdeviceptr, Long> live = new IdentityHashMap<>();

    private CudaContext(int ordinal) {
        this.device = CudaDevice.open(ordinal);
    }

    /** Device {@code ordinal}'s context, retained on first use for the life of the process. */
    static synchronized CudaContext of(int ordinal) {
        return OPEN.computeIfAbsent(ordinal, CudaContext::new);
    }

    /** Makes the context current on the calling thread (every entry point calls this first). */
    void makeCurrent() {
        device.makeCurrent();
    }

    int ordinal() {
        return device.ordinal();
    }

    /** The device's streaming multiprocessors. */
    int multiprocessors() {
        return device.multiprocessors();
    }

    /** Entry {@code entry} of the module {@code name}, loading {@code fatbin} the first time. */
    CUfunction function(String name, String entry, Supplier<byte[]> fatbin) {
        return device.function(name, entry, fatbin);
    }

    /** Lets {@code f} use {@code bytes} of dynamic shared memory (above 48 KiB it must be asked for). */
    static void allowShared(CUfunction f, int bytes) {
        if (bytes > 48 * 1024) {
            cuFuncSetAttribute(f, CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes);
        }
    }

    /**
     * {@code bytes} of device memory (at least one byte is allocated).
     *
     * @throws DeviceMemoryException naming {@code what}, the size and the free memory
     */
    DevicePointer allocate(String what, long bytes) {
        makeCurrent();
        DevicePointer ptr = new DevicePointer();
        try {
            cuMemAlloc(ptr, Math.max(1, bytes));
        } catch (CudaException e) {
            long[] free = new long[1];
            long[] total = new long[1];
            cuMemGetInfo(free, total);
            throw new DeviceMemoryException(what, bytes, free[0], total[0], e);
        }
        synchronized (live) {
            live.put(ptr, Math.max(1, bytes));
        }
        return ptr;
    }

    void free(CUdeviceptr ptr) {
        makeCurrent();
        cuMemFree(ptr);
        synchronized (live) {
            live.remove(ptr);
        }
    }

    /** Bytes of the buffers task graphs hold on this device now, persisted ones included. */
    long liveBytes() {
        synchronized (live) {
            return live.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /** Free device memory now, in bytes, as the driver reports it (it may keep freed blocks for reuse a while). */
    long freeBytes() {
        return device.freeBytes();
    }

    /** Keeps {@code array}'s buffer on the device for the plan that consumes it. */
    synchronized void persist(DeviceArray array) {
        resident.put(array.array(), array);
    }

    /** The buffer a closed plan persisted for {@code array}, handed over to the caller; null when there is none. */
    synchronized @Nullable DeviceArray consume(Object array) {
        return resident.remove(array);
    }
}
