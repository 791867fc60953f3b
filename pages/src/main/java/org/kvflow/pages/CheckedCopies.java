package org.kvflow.pages;

import java.util.List;

/**
 * A {@link PageMemory} capability: a batch of page copies that also gives the CRC32C of every page
 * it moved, computed from the bytes as they were copied, so that one read of each byte serves the
 * copy and its checksum (the GPU's {@code cuda-ipc} sender). Asked for with
 * {@code memory.capability(CheckedCopies.class)}.
 */
public interface CheckedCopies {
    /**
     * Runs {@code copies} as {@link PageMemory#copyPages(List)} does, checked the same way before the
     * first byte moves.
     *
     * @return {@code crcs[i][k]}: the CRC32C, as {@link java.util.zip.CRC32C} gives it, of page
     *     {@code copies.get(i).srcPages()[k]} as it was copied
     * @throws PageListMismatchException if a copy's lists differ in length
     * @throws PageSizeMismatchException if a copy's page sizes differ
     * @throws PageOutOfRangeException   naming the first page outside its buffer
     */
    int[][] copyPagesChecked(List<PageCopy> copies);
}
