package org.kvflow.pages;

import java.util.List;

/**
 * A {@link PageMemory} capability: a run of pages copied in every buffer of a batch (a run over a
 * store's layers and pools), which also gives each page's CRC32C over its bytes in every copy's
 * source in turn, computed from the bytes as they were copied, so that one read of each byte serves
 * the copy and its checksum (the GPU's {@code cuda-ipc} sender). Asked for with
 * {@code memory.capability(CheckedCopies.class)}.
 */
public interface CheckedCopies {
    /**
     * Runs {@code copies} as {@link PageMemory#copyPages(List)} does, checked the same way and for
     * one run ({@link PageCopies#checkOneRun}) before the first byte moves.
     *
     * @return {@code crcs[k]}: the CRC32C, as {@link java.util.zip.CRC32C} gives it, of page
     *     {@code srcPages[k]}'s bytes of {@code copies.get(0).src()}, then of {@code copies.get(1).src()},
     *     and so on, as they were copied
     * @throws PageListMismatchException if a copy's lists differ in length
     * @throws PageSizeMismatchException if a copy's page sizes differ
     * @throws PageOutOfRangeException   naming the first page outside its buffer
     * @throws IllegalArgumentException  naming the first copy that moves other pages than the first copy
     */
    int[] copyPagesChecked(List<PageCopy> copies);
}
