package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuIpcGetMemHandle;
import static jcuda.driver.JCudaDriver.cuIpcOpenMemHandle;
import static jcuda.driver.JCudaDriver.cuMemsetD8;

import java.util.ArrayList;
import java.util.List;
import jcuda.driver.CUipcMemHandle;
import jcuda.driver.CUipcMem_flags;
import org.kvflow.pages.OutOfDeviceMemoryException;

/**
 * Device buffers shared between processes of one machine: shareable allocations made with CUDA's
 * virtual memory management, exported as POSIX descriptors and opened alone or side by side in one
 * range, and CUDA IPC handles for ordinary device buffers. Makes buffers; the page memory tracks and
 * frees them. The device's context must be current on every call.
 */
final class SharedBuffers {
    private final CudaDevice device;

    SharedBuffers(CudaDevice device) {
        this.device = device;
    }

    /** A zeroed shareable buffer. */
    DeviceBuffer allocate(String label, long pages, int pageBytes) {
        String what = label + " (" + pages + " pages of " + pageBytes + " B, shareable)";
        VmmAllocation.Range range;
        try {
            range = VmmAllocation.create(device.ordinal(), pages * pageBytes);
        } catch (RuntimeException e) {
            if (String.valueOf(e.getMessage()).contains("CUresult 2")) { // CUDA_ERROR_OUT_OF_MEMORY
                throw new OutOfDeviceMemoryException("cuda", what, pages * pageBytes, device.freeBytes(), e);
            }
            throw new CudaCopyException("allocating " + what, e);
        }
        DeviceBuffer buffer = new DeviceBuffer(label, pages, pageBytes, range.base(), false, range);
        try {
            cuMemsetD8(range.base(), (byte) 0, pages * pageBytes);
        } catch (RuntimeException e) {
            range.release();
            throw new CudaCopyException("zeroing " + what, e);
        }
        return buffer;
    }

    /** The handle another process opens {@code b} by: pid, descriptor and size for a shareable buffer, else a CUDA IPC handle. */
    byte[] export(DeviceBuffer b) {
        if (b.range != null && !b.imported) {
            if (b.exportedFd < 0) {
                b.exportedFd = VmmAllocation.export(VmmAllocation.firstHandle(b.range));
            }
            return SharedHandle.encode(ProcessHandle.current().pid(), b.exportedFd, b.range.sizes()[0]);
        }
        if (b.host != null || b.imported) {
            throw new IllegalArgumentException(b.label() + ": only device buffers this memory allocated can be exported, not "
                    + (b.imported ? "one opened from another process" : "pinned host memory"));
        }
        CUipcMemHandle handle = new CUipcMemHandle();
        try {
            cuIpcGetMemHandle(handle, b.address);
        } catch (RuntimeException e) {
            throw new CudaCopyException("exporting " + b.label(), e);
        }
        return IpcHandles.bytes(handle);
    }

    /** Another process's buffer opened by its CUDA IPC handle, peer access enabled lazily across GPUs. */
    DeviceBuffer openIpc(String label, byte[] handle, long pages, int pageBytes) {
        if (handle.length != IpcHandles.BYTES) {
            throw new IllegalArgumentException(label + ": a CUDA IPC handle has " + IpcHandles.BYTES + " bytes, not " + handle.length);
        }
        DevicePointer ptr = new DevicePointer();
        try {
            cuIpcOpenMemHandle(ptr, IpcHandles.of(handle), CUipcMem_flags.CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS);
        } catch (RuntimeException e) {
            throw new CudaCopyException("opening " + label + " from another process's handle", e);
        }
        return new DeviceBuffer(label, pages, pageBytes, org.kvflow.pages.Residency.DEVICE, ptr, null, true);
    }

    /** Pages per stride: a multiple of the allocation granularity in bytes for every page size, covering {@code pagesEach}. */
    long stride(long pagesEach, int... pageBytes) {
        long granularity = VmmAllocation.granularity(device.ordinal());
        long unit = 1;
        for (int bytes : pageBytes) {
            long pagesPerUnit = granularity / gcd(bytes, granularity); // pages whose bytes are a multiple of the granularity
            unit = unit / gcd(unit, pagesPerUnit) * pagesPerUnit;
        }
        return VmmAllocation.roundUp(pagesEach, unit);
    }

    /**
     * Shareable buffers of other processes side by side in one range: buffer {@code i}'s page
     * {@code k} is page {@code i·stride + k}. Each descriptor is duplicated from its process
     * ({@code pidfd_getfd}), imported and closed; the range goes when the buffer is freed.
     */
    DeviceBuffer openSideBySide(String label, List<byte[]> handles, long pagesEach, int pageBytes, long stride) {
        if (stride < pagesEach) {
            throw new IllegalArgumentException(label + ": a stride of " + stride + " pages cannot hold " + pagesEach);
        }
        long strideBytes = stride * pageBytes;
        long granularity = VmmAllocation.granularity(device.ordinal());
        if (strideBytes % granularity != 0) {
            throw new IllegalArgumentException(label + ": a stride of " + strideBytes + " B is not a multiple of the allocation granularity "
                    + granularity);
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
            VmmAllocation.Range range = VmmAllocation.map(device.ordinal(), strideBytes * handles.size(),
                    opened.stream().mapToLong(Long::longValue).toArray(), offsets, sizes);
            return new DeviceBuffer(label, stride * handles.size(), pageBytes, range.base(), true, range);
        } catch (RuntimeException e) {
            opened.forEach(VmmAllocation::release);
            throw e instanceof IllegalArgumentException ? e : new CudaCopyException("opening " + label + " from other processes' allocations", e);
        }
    }

    private static long gcd(long a, long b) {
        return b == 0 ? a : gcd(b, a % b);
    }
}
