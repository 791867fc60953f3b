package org.kvflow.journal;

import java.nio.file.Path;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.kvflow.core.hicache.HiCachePool;

/**
 * Where and how a journal is kept.
 *
 * @param dir                    the queue directory (created if missing)
 * @param layout                 page size and KV layout of the payloads
 * @param roll                   cycle length
 * @param clockMillis            time source (epoch ms) for records and cycles; tests inject one
 * @param deleteBehindCheckpoint delete cycle files wholly before a checkpoint's first needed index
 */
public record JournalOptions(Path dir, JournalLayout layout, RollPeriod roll, LongSupplier clockMillis, boolean deleteBehindCheckpoint) {
    /** Checks that every part is given. */
    public JournalOptions {
        Objects.requireNonNull(dir, "dir");
        Objects.requireNonNull(layout, "layout");
        Objects.requireNonNull(roll, "roll");
        Objects.requireNonNull(clockMillis, "clockMillis");
    }

    /**
     * Daily cycles, the system clock, checkpoints delete old cycles.
     *
     * @param dir    the queue directory
     * @param layout page size and KV layout of the payloads
     * @return the options
     */
    public static JournalOptions of(Path dir, JournalLayout layout) {
        return new JournalOptions(dir, layout, RollPeriod.DAILY, System::currentTimeMillis, true);
    }

    /**
     * Largest encoded record: the larger pool's payload plus header and token ids.
     *
     * @return bytes
     */
    public long largestRecordBytes() {
        long payload = Math.max(layout.payloadBytes(HiCachePool.KV), layout.payloadBytes(HiCachePool.INDEXER));
        return payload + 4L * layout.pageSize() + 256;
    }

    /**
     * Chronicle's block size: a power of two at least 4× the largest record, at least 256 KiB.
     *
     * @return bytes
     */
    public long blockSize() {
        long needed = Math.max(256 << 10, 4 * largestRecordBytes());
        return Long.highestOneBit(needed - 1) << 1;
    }
}
