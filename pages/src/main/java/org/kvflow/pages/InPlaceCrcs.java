package org.kvflow.pages;

import java.util.List;
import java.util.Objects;

/**
 * A {@link PageMemory} capability: CRC32C of byte ranges of its buffers computed where the bytes
 * lie (on the GPU for the cuda memory), so that checking pages does not copy them to the host.
 * Asked for with {@code memory.capability(RangeCrcs.class)}; {@link Crc32cCombine} joins the
 * ranges' checksums into the checksum of their concatenation.
 */
public interface RangeCrcs {
    /**
     * The CRC32C of each range, as {@link java.util.zip.CRC32C} gives it for the same bytes.
     *
     * @throws ForeignBufferException if a range's buffer is not this memory's
     * @throws ByteRangeException     if a range lies outside its buffer
     */
    int[] crc32c(List<Range> ranges);

    /** Bytes {@code [offset, offset + length)} of {@code buffer}. */
    record Range(PageBuffer buffer, long offset, int length) {
        public Range {
            Objects.requireNonNull(buffer, "buffer");
        }
    }
}
