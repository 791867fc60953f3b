package org.kvflow.pages;

/**
 * A {@link PageMemory} capability: buffers that other processes on the same machine open in place
 * (CUDA IPC for device memory), as a rank process exports its pool. Asked for with
 * {@code memory.capability(BufferExport.class)}.
 */
public interface BufferExport {
    /** A zeroed buffer of the memory that other processes can open in place, also side by side ({@link SideBySideViews}). */
    PageBuffer allocateShared(String label, long pages, int pageBytes);

    /**
     * A handle another process on the same machine opens ({@link BufferImport}) to reach
     * {@code buffer} in place. The buffer stays this memory's; the handle is valid while it lives.
     */
    byte[] exportBuffer(PageBuffer buffer);
}
