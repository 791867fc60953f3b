package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuFuncSetAttribute;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.Map;
import jcuda.CudaException;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import org.kvflow.cuda.DevicePointer;
import jcuda.driver.CUfunction;
import jcuda.driver.CUfunction_attribute;
import jcuda.driver.CUmodule;
import org.jspecify.annotations.Nullable;

/**
 * One CUDA device as the task graphs of this process share it: its primary context, the
 * functions loaded from modules (each module loaded once), and the arrays plans persisted on the
 * device for a later plan to consume. Thread-safe.
 */
final class CudaContext {
    private static final Map<Integer, CudaContext> OPEN = new HashMap<>();

    private final int ordinal;
    private final CUcontext context = new CUcontext();
    private final Map<String, CUfunction> functions = new HashMap<>();
    private final Map<Object, DeviceArray> resident = new IdentityHashMap<>();
    /** Bytes of every buffer allocated here and not yet freed, by allocation. */
    private final Map<CUdeviceptr, Long> live = new IdentityHashMap<>();

    private CudaContext(int ordinal) {
        this.ordinal = ordinal;
        CUdevice device = new CUdevice();
        cuDeviceGet(device, ordinal);
        cuDevicePrimaryCtxRetain(context, device);
    }

    /** Device {@code ordinal}'s context, retained on first use for the life of the process. */
    static synchronized CudaContext of(int ordinal) {
        return OPEN.computeIfAbsent(ordinal, CudaContext::new);
    }

    /** Makes the context current on the calling thread (every entry point calls this first). */
    void makeCurrent() {
        cuCtxSetCurrent(context);
    }

    int ordinal() {
        return ordinal;
    }

    /** Entry {@code entry} of the module {@code name}, loading {@code fatbin} the first time. */
    synchronized CUfunction function(String name, String entry, java.util.function.Supplier<byte[]> fatbin) {
        return functions.computeIfAbsent(name + "#" + entry, k -> {
            makeCurrent();
            CUmodule module = new CUmodule();
            cuModuleLoadData(module, fatbin.get());
            CUfunction f = new CUfunction();
            cuModuleGetFunction(f, module, entry);
            return f;
        });
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
        makeCurrent();
        long[] free = new long[1];
        long[] total = new long[1];
        cuMemGetInfo(free, total);
        return free[0];
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
