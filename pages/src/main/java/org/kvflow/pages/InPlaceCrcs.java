package org.kvflow.pages;

import java.util.List;

/**
 * A {@link PageMemory} capability: CRC32C of pages of its buffers computed where the bytes lie (on
 * the GPU for the cuda memory), so that checking pages does not copy them to the host. The same
 * page list is checksummed in every buffer given (a run's pages over a store's layers and pools),
 * in one call. Asked for with {@code memory.capability(InPlaceCrcs.class)}; {@link Crc32cCombine}
 * joins a page's buffers' checksums into the checksum of their concatenation.
 */
public interface InPlaceCrcs {
    /**
     * @return {@code crcs[b][k]}: the CRC32C, as {@link java.util.zip.CRC32C} gives it, of page
     *     {@code pages[k]} of {@code buffers.get(b)}
     * @throws ForeignBufferException  if a buffer is not this memory's
     * @throws PageOutOfRangeException naming the first page outside its buffer
     */
    int[][] crc32c(List<PageBuffer> buffers, long[] pages);
}
