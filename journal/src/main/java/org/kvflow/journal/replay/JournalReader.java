package org.kvflow.journal.replay;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.jspecify.annotations.Nullable;
import org.kvflow.journal.JournalIoException;
import org.kvflow.journal.record.JournalRecord;
import org.kvflow.journal.record.PayloadTarget;
import org.kvflow.journal.record.RecordCodec;
import org.kvflow.journal.record.RecordDecodeException;

/**
 * Reads a journal record by record from a start point (contract §11.4), decoding and checking each:
 * {@link #next()} returns the next good record, or an {@link Item} that carries the refusal of a
 * record that cannot be decoded. A damaged cycle file (truncated, a header overwritten, empty) is
 * read up to its last intact record ({@link ReadableJournal}) and reported by {@link #damage()};
 * the records of later cycles are still read. Blocking; one thread at a time; close it to release
 * the files.
 */
public final class JournalReader implements AutoCloseable {
    private final ReadableJournal view;
    private final SingleChronicleQueue queue;
    private final ExcerptTailer tailer;
    private final ExcerptTailer lookup;
    private final RecordCodec codec = new RecordCodec();
    private boolean waitingForTime;
    private final long notBefore;

    /**
     * A record read, or the reason the record at {@code index} was refused.
     *
     * @param index   the record's queue index
     * @param record  the decoded record, or null when refused
     * @param refusal why it was refused, or null when read
     */
    public record Item(long index, @Nullable JournalRecord record, @Nullable String refusal) {}

    private JournalReader(Path dir, ReplayStart start) {
        Objects.requireNonNull(dir, "dir");
        this.view = ReadableJournal.of(dir);
        try {
            this.queue = SingleChronicleQueueBuilder.single(view.dir().toFile()).readOnly(!view.writable()).build();
        } catch (RuntimeException e) {
            view.close();
            throw new JournalIoException("cannot open the journal at " + dir + ": " + e.getMessage(), e);
        }
        this.tailer = queue.createTailer();
        this.lookup = queue.createTailer();
        this.waitingForTime = start instanceof ReplayStart.FromTime;
        this.notBefore = start instanceof ReplayStart.FromTime t ? t.epochMillis() : Long.MIN_VALUE;
        if (start instanceof ReplayStart.FromIndex from && !tailer.moveToIndex(from.index())) {
            close();
            throw new IllegalArgumentException("no record at index " + Long.toHexString(from.index()) + " in " + dir);
        }
        if (start instanceof ReplayStart.FromRecord from) {
            long skipped = skip(from.number());
            if (skipped < from.number() || from.number() < 0) {
                close();
                throw new IllegalArgumentException("no record number " + from.number() + " in " + dir + ": it holds " + skipped + " records");
            }
        }
    }

    /** Reads past up to {@code records} documents; returns how many there were. */
    private long skip(long records) {
        long skipped = 0;
        while (skipped < records) {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    break;
                }
            }
            skipped++;
        }
        return skipped;
    }

    /**
     * Opens a journal for reading.
     *
     * @param dir   the journal directory
     * @param start where to begin
     * @return the reader; close it
     * @throws JournalIoException       if {@code dir} cannot be opened as a queue
     * @throws IllegalArgumentException if {@code start} names an index that holds no record
     */
    public static JournalReader open(Path dir, ReplayStart start) {
        return new JournalReader(dir, start);
    }

    /**
     * Reads on.
     *
     * @return the next item, or null at the end of what is written now
     */
    public @Nullable Item next() {
        while (true) {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    return null;
                }
                long index = dc.index();
                JournalRecord record;
                try {
                    record = codec.read(dc.wire().bytes(), index).record();
                } catch (RecordDecodeException e) {
                    return new Item(index, null, e.getMessage());
                }
                if (waitingForTime) {
                    if (record.timestampMillis() < notBefore) {
                        continue;
                    }
                    waitingForTime = false;
                }
                String refusal = record instanceof JournalRecord.Checkpoint c ? checkCheckpoint(c) : null;
                return new Item(index, record, refusal);
            }
        }
    }

    /**
     * A {@code BACKUP} decoded in place, or the reason the record at {@code index} was refused.
     *
     * @param index   the record's queue index
     * @param backup  the backup's header and whether its payload was placed, or null when refused
     * @param refusal why it was refused, or null when read
     */
    public record PlacedItem(long index, RecordCodec.@Nullable Placed backup, @Nullable String refusal) {}

    /**
     * Reads on to the next {@code BACKUP}, its payload decoded straight into the buffers
     * {@code target} names; other records pass unread. A backup from before a start time is
     * skipped without asking the target.
     *
     * @param target where each payload goes
     * @return the next backup, or an item that carries the refusal of a record that cannot be decoded; null at the end of what is written now
     */
    public @Nullable PlacedItem nextBackup(PayloadTarget target) {
        PayloadTarget timed = header -> {
            if (waitingForTime && header.timestampMillis() < notBefore) {
                return null;
            }
            waitingForTime = false;
            return target.buffers(header);
        };
        while (true) {
            try (DocumentContext dc = tailer.readingDocument()) {
                if (!dc.isPresent()) {
                    return null;
                }
                long index = dc.index();
                try {
                    RecordCodec.Placed placed = codec.readPlaced(dc.wire().bytes(), index, timed);
                    if (placed != null && (placed.placed() || !waitingForTime)) {
                        return new PlacedItem(index, placed, null);
                    }
                } catch (RecordDecodeException e) {
                    return new PlacedItem(index, null, e.getMessage());
                }
            }
        }
    }

    /** A checkpoint must name a record that still carries the CRC it had when the checkpoint was written. */
    private @Nullable String checkCheckpoint(JournalRecord.Checkpoint checkpoint) {
        long named = checkpoint.firstNeededIndex();
        if (checkpoint.expectedCrc() == 0) {
            return null;
        }
        String where = "checkpoint names index " + Long.toHexString(named);
        if (!lookup.moveToIndex(named)) {
            return where + ", which holds no record";
        }
        try (DocumentContext dc = lookup.readingDocument()) {
            if (!dc.isPresent()) {
                return where + ", which holds no record";
            }
            int crc = codec.read(dc.wire().bytes(), named).crc();
            return crc == checkpoint.expectedCrc() ? null : where + ", which now holds a different record";
        } catch (RecordDecodeException e) {
            return where + ", which is corrupt: " + e.getMessage();
        }
    }

    /**
     * Damaged cycle files.
     *
     * @return what the reader could not read, after every record before the damage
     */
    public List<JournalDamage> damage() {
        return view.damage(queue.rollCycle());
    }

    /** The queue the reader reads (for summaries in this package). */
    SingleChronicleQueue queue() {
        return queue;
    }

    @Override
    public void close() {
        tailer.close();
        lookup.close();
        queue.close();
        view.close();
    }
}
