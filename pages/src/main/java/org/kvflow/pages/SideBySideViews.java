package org.kvflow.pages;

import java.util.List;

/**
 * A {@link PageMemory} capability: the shared buffers of several processes mapped side by
 * side as one buffer, a virtual view of every rank's pool read in place. Asked for with
 * {@code memory.capability(SideBySideViews.class)}.
 */
public interface SideBySideViews {
    /**
     * The smallest stride, in pages, at which buffers of {@code pagesEach} pages of every size in
     * {@code pageBytes} can be mapped side by side: one stride for all, so a page number means the
     * same page in every layer and component.
     */
    long sideBySideStride(long pagesEach, int... pageBytes);

    /**
     * Buffers of other processes (handles of {@link BufferExport} buffers) opened side by side in one buffer of
     * this memory: buffer {@code i}'s page {@code k} is page {@code i·stride + k}.
     */
    PageBuffer importSideBySide(String label, List<byte[]> handles, long pagesEach, int pageBytes, long stride);
}
