package org.kvflow.cuda;

import static jcuda.driver.JCudaDriver.cuIpcCloseMemHandle;
import static jcuda.driver.JCudaDriver.cuMemFree;
import static jcuda.driver.JCudaDriver.cuMemFreeHost;

import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import org.jspecify.annotations.Nullable;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.Residency;

/** A page buffer in device memory, or in pinned host memory mapped into the device's address space. */
final class DeviceBuffer implements PageBuffer {
    private final String label;
    private final long pages;
    private final int pageBytes;
    private final Residency residency;
    /** Device address (for pinned memory: its unified address). */
    final DevicePointer address;
    /** Host address of pinned memory; null for device memory. */
    final @Nullable Pointer host;
    /** Opened from another process's IPC handle: freeing closes the handle. */
    final boolean imported;
    /** Set for memory mapped through CUDA's virtual memory management: freeing unmaps and releases it. */
    final VmmAllocation.@Nullable Range range;
    /** For an exported shareable allocation: the descriptor handed out (kept open while the buffer lives); -1 before. */
    int exportedFd = -1;
    boolean freed;
    /** The memory that holds it while it is live (tracked and not yet freed): every call's ownership check reads this, not a set. */
    @Nullable CudaPageMemory heldBy;

    DeviceBuffer(String label, long pages, int pageBytes, Residency residency, DevicePointer address, @Nullable Pointer host) {
        this(label, pages, pageBytes, residency, address, host, false);
    }

    DeviceBuffer(String label, long pages, int pageBytes, Residency residency, DevicePointer address, @Nullable Pointer host, boolean imported) {
        this(label, pages, pageBytes, residency, address, host, imported, null);
    }

    DeviceBuffer(String label, long pages, int pageBytes, DevicePointer address, boolean imported, VmmAllocation.@Nullable Range range) {
        this(label, pages, pageBytes, Residency.DEVICE, address, null, imported, range);
    }

    private DeviceBuffer(String label, long pages, int pageBytes, Residency residency, DevicePointer address, @Nullable Pointer host,
                         boolean imported, VmmAllocation.@Nullable Range range) {
        this.label = label;
        this.pages = pages;
        this.pageBytes = pageBytes;
        this.residency = residency;
        this.address = address;
        this.host = host;
        this.imported = imported;
        this.range = range;
    }

    @Override public String label() { return label; }
    @Override public long pages() { return pages; }
    @Override public int pageBytes() { return pageBytes; }
    @Override public Residency residency() { return residency; }

    CUdeviceptr at(long page) {
        return address.withByteOffset(page * pageBytes);
    }

    /** Gives the memory back the way it was made (once; later calls do nothing); the device's context must be current. */
    void release() {
        if (freed) {
            return;
        }
        freed = true;
        if (range != null) {
            range.release();
            if (exportedFd >= 0) {
                Descriptors.close(exportedFd);
            }
        } else if (host != null) {
            cuMemFreeHost(host);
        } else if (imported) {
            cuIpcCloseMemHandle(address);
        } else {
            cuMemFree(address);
        }
    }
}
