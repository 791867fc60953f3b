package org.kvflow.bench;

import static jcuda.driver.JCudaDriver.cuCtxEnablePeerAccess;
import static jcuda.driver.JCudaDriver.cuCtxGetCurrent;
import static jcuda.driver.JCudaDriver.cuDeviceCanAccessPeer;
import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;
import static jcuda.driver.JCudaDriver.cuMemAlloc;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;
import static jcuda.driver.JCudaDriver.cuMemHostAlloc;
import static jcuda.driver.JCudaDriver.cuMemHostGetDevicePointer;
import static jcuda.driver.JCudaDriver.cuMemcpyAsync;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.ArrayList;
import java.util.List;
import jcuda.CudaException;
import jcuda.Pointer;
import jcuda.driver.CUcontext;
import jcuda.driver.CUdevice;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import jcuda.driver.JCudaDriver;
import org.kvflow.cuda.CudaDevice;

/**
 * What the page copies are measured against, on raw buffers of the same device that kvflow never
 * sees: one {@code cuMemcpyAsync} of the same bytes (device to device, to another device it reaches
 * peer to peer, or to and from pinned host memory), DMA runs of the same pages, and device time between two events on the legacy default
 * stream (the page memory's stream waits on it, so the events bracket its work).
 */
final class CudaBaseline implements AutoCloseable {
    private final CudaDevice device;
    private final CUstream stream = new CUstream();
    private final List<CUdeviceptr> deviceBuffers = new ArrayList<>();
    private final List<Pointer> hostBuffers = new ArrayList<>();

    CudaBaseline(CudaDevice device) {
        this.device = device;
        device.makeCurrent();
        cuStreamCreate(stream, 0);
    }

    /** {@code bytes} of device memory, freed at {@link #close()}. */
    CUdeviceptr deviceBytes(long bytes) {
        device.makeCurrent();
        CUdeviceptr ptr = new CUdeviceptr();
        cuMemAlloc(ptr, bytes);
        deviceBuffers.add(ptr);
        return ptr;
    }

    /** {@code bytes} of pinned host memory, as the device addresses it; freed at {@link #close()}. */
    CUdeviceptr pinnedBytes(long bytes) {
        device.makeCurrent();
        Pointer host = new Pointer();
        cuMemHostAlloc(host, bytes, JCudaDriver.CU_MEMHOSTALLOC_DEVICEMAP | JCudaDriver.CU_MEMHOSTALLOC_PORTABLE);
        hostBuffers.add(host);
        CUdeviceptr mapped = new CUdeviceptr();
        cuMemHostGetDevicePointer(mapped, host, 0);
        return mapped;
    }

    /**
     * Lets this device's copies and kernels reach {@code other}'s memory directly (over NVLink or
     * PCIe peer to peer), as an IPC mapping of the other device's memory does; already enabled is fine.
     */
    void reachPeer(CudaDevice other) {
        other.makeCurrent();
        CUcontext peer = new CUcontext();
        cuCtxGetCurrent(peer);
        device.makeCurrent();
        int[] can = new int[1];
        CUdevice self = new CUdevice();
        CUdevice them = new CUdevice();
        cuDeviceGet(self, device.ordinal());
        cuDeviceGet(them, other.ordinal());
        cuDeviceCanAccessPeer(can, self, them);
        if (can[0] == 0) {
            throw new IllegalStateException("device " + device.ordinal() + " cannot reach device " + other.ordinal() + "'s memory peer to peer");
        }
        try {
            cuCtxEnablePeerAccess(peer, 0);
        } catch (CudaException e) {
            if (!e.getMessage().contains("CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED")) {
                throw e;
            }
        }
    }

    /** One plain copy of {@code bytes}, waited for: the contiguous baseline. */
    void copy(CUdeviceptr dst, CUdeviceptr src, long bytes) {
        device.makeCurrent();
        cuMemcpyAsync(dst, src, bytes, stream);
        cuStreamSynchronize(stream);
    }

    /** The same page copy as DMA: one {@code cuMemcpyAsync} per run of pages contiguous on both sides, then one wait. */
    void copyRuns(CUdeviceptr src, long[] srcPages, CUdeviceptr dst, long[] dstPages, int pageBytes) {
        device.makeCurrent();
        int start = 0;
        for (int i = 1; i <= srcPages.length; i++) {
            if (i == srcPages.length || srcPages[i] != srcPages[i - 1] + 1 || dstPages[i] != dstPages[i - 1] + 1) {
                cuMemcpyAsync(dst.withByteOffset(dstPages[start] * pageBytes), src.withByteOffset(srcPages[start] * pageBytes),
                        (long) (i - start) * pageBytes, stream);
                start = i;
            }
        }
        cuStreamSynchronize(stream);
    }

    /** Device time of {@code work}, which copies on this baseline's stream, between two events on that stream. */
    float timeMillis(Runnable work) {
        device.makeCurrent();
        return between(stream, work);
    }

    /**
     * Device time between two CUDA events recorded on {@code stream} around {@code work} (which
     * enqueues there and waits), in the context current on this thread.
     */
    static float between(CUstream stream, Runnable work) {
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

    @Override
    public void close() {
        device.makeCurrent();
        deviceBuffers.forEach(p -> cuMemFree(p));
        hostBuffers.forEach(p -> cuMemFreeHost(p));
        cuStreamDestroy(stream);
    }
}
