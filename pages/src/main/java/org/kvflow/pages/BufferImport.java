package org.kvflow.pages;

/**
 * A {@link PageMemory} capability: opening a buffer another process holds, by the handle it
 * exported ({@link BufferExport}), as a buffer of this memory. Asked for with
 * {@code memory.capability(BufferImport.class)}.
 */
public interface BufferImport {
    /**
     * Opens a buffer another process exported as a buffer of this memory that reads and writes the
     * other process's pages in place; {@link PageMemory#free} closes the handle and never frees
     * the other process's memory.
     */
    PageBuffer importBuffer(String label, byte[] handle, long pages, int pageBytes);
}
