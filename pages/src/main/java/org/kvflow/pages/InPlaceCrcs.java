package org.kvflow.pages;

import java.util.List;

/**
 * A {@link PageMemory} capability: CRC32C of pages of its buffers computed where the bytes lie (on
 * the GPU for the cuda memory), so that checking pages does not copy them to the host. The same
 * page list is checksummed in every buffer given (a run's pages over a store's layers and pools),
 * in one call, and each page's checksum covers its bytes in every buffer in turn, as the transfer
 * protocol checks a page ({@link Crc32cCombine} is the join's Java reference). Asked for with
 * {@code memory.capability(InPlaceCrcs.class)}.
 */
public interface InPlaceCrcs {
    /**
     * @return {@code crcs[k]}: the CRC32C, as {@link java.util.zip.CRC32C} gives it, of page
     *     {@code pages[k]}'s bytes of {@code buffers.get(0)}, then of {@code buffers.get(1)}, and so on
     * @throws ForeignBufferException  if a buffer is not this memory's
     * @throws PageOutOfRangeException naming the first page outside its buffer
     */
    int[] crc32c(List<PageBuffer> buffers, long[] pages);
}
