package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuCtxSetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetAttribute;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuDevicePrimaryCtxRetain;
import static jcuda.driver.JCudaDriver.cuInit;
import static jcuda.driver.JCudaDriver.cuMemGetInfo;
import static jcuda.driver.JCudaDriver.cuModuleGetFunction;
import static jcuda.driver.JCudaDriver.cuModuleLoadData;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.function.Supplier;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdevice_attribute;
import jcuda.driver.CUfunction;
import jcuda.driver.CUmodule;
import jcuda.driver.JCudaDriver;
import org.kvflow.core.Failures;
import org.kvflow.pages.MemoryUnavailableException;

/**
 * One CUDA device as this process holds it: its primary context, retained once for the life of
 * the process, and the kernel modules loaded into it, each loaded once. The page memory and the
 * task-graph backend of the same ordinal both run here, so their buffers are addresses of one
 * context. Thread-safe.
 */
public final class CudaDevice {
    private static final Map<Integer, CudaDevice> OPEN = new HashMap<>();

    private final int ordinal;
    private final CUcontext context = new CUcontext();
    private final String name;
    private final int multiprocessors;
    private final int sharedBytesPerBlock;
    private final Map<String, CUfunction> functions = new HashMap<>();

    private CudaDevice(int ordinal) {
        this.ordinal = ordinal;
        CUdevice device = new CUdevice();
        try {
            JCudaDriver.setExceptionsEnabled(true);
            cuInit(0);
            cuDeviceGet(device, ordinal);
        } catch (Throwable e) { // UnsatisfiedLinkError without libcuda, CudaException without a device
            throw new MemoryUnavailableException("cuda", "no CUDA driver or device " + ordinal + " (" + Failures.brief(e) + ")", e);
        }
        try {
            byte[] text = new byte[256];
            cuDeviceGetName(text, text.length, device);
            this.name = new String(text, StandardCharsets.US_ASCII).trim().replace("\0", "");
            int[] sms = new int[1];
            cuDeviceGetAttribute(sms, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, device);
            this.multiprocessors = sms[0];
            int[] shared = new int[1];
            cuDeviceGetAttribute(shared, CUdevice_attribute.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, device);
            this.sharedBytesPerBlock = shared[0];
            cuDevicePrimaryCtxRetain(context, device);
        } catch (RuntimeException e) {
            throw new CudaCopyException("opening CUDA device " + ordinal, e);
        }
    }

    /**
     * Device {@code ordinal}, its context retained on first use.
     *
     * @throws MemoryUnavailableException when the driver library or the device is missing
     */
    public static synchronized CudaDevice open(int ordinal) {
        return OPEN.computeIfAbsent(ordinal, CudaDevice::new);
    }

    /** Makes the device's context current on the calling thread (every entry point that calls the driver does this first). */
    public void makeCurrent() {
        cuCtxSetCurrent(context);
    }

    /** The device's ordinal. */
    public int ordinal() {
        return ordinal;
    }

    /** The device's name as the driver reports it. */
    public String name() {
        return name;
    }

    /** Streaming multiprocessors. */
    public int multiprocessors() {
        return multiprocessors;
    }

    /** The most shared memory a block may use, static and dynamic together, when a kernel asks for it. */
    public int sharedBytesPerBlock() {
        return sharedBytesPerBlock;
    }

    /** Free device memory as the driver reports it ({@code cuMemGetInfo}). */
    public long freeBytes() {
        makeCurrent();
        long[] free = new long[1];
        long[] total = new long[1];
        cuMemGetInfo(free, total);
        return free[0];
    }

    /** Entry {@code entry} of module {@code module}, loading {@code fatbin} the first time either is asked for. */
    public synchronized CUfunction function(String module, String entry, Supplier<byte[]> fatbin) {
        return functions.computeIfAbsent(module + "#" + entry, k -> {
            makeCurrent();
            CUmodule loaded = new CUmodule();
            cuModuleLoadData(loaded, fatbin.get());
            CUfunction f = new CUfunction();
            cuModuleGetFunction(f, loaded, entry);
            return f;
        });
    }

    /** One of the shipped page kernels. */
    CUfunction function(CudaKernels kernel) {
        return function(kernel.module(), kernel.entry(), kernel::fatbin);
    }
}
