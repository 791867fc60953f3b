package org.kvflow.journal.record;

/** A decoded journal record with the queue index it was read at. */
public sealed interface JournalRecord permits JournalRecord.Backup, JournalRecord.EvictHost, JournalRecord.Checkpoint {
    /** The Chronicle Queue index of the record. */
    long index();

    /** When the record was appended (epoch milliseconds). */
    long timestampMillis();

    /** {@code BACKUP}: a page of one pool went to the host cache. */
    record Backup(long index, long timestampMillis, PageBackup page) implements JournalRecord {}

    /** {@code EVICT_HOST}: both pools of a page left the host cache. */
    record EvictHost(long index, long timestampMillis, byte[] pageHash) implements JournalRecord {}

    /**
     * {@code CHECKPOINT}: every live page is backed up at or after {@code firstNeededIndex};
     * {@code expectedCrc} is the checksum of the record that held {@code firstNeededIndex} when the
     * checkpoint was written (0 if none), so replay can tell when that index now holds another record.
     */
    record Checkpoint(long index, long timestampMillis, long firstNeededIndex, int expectedCrc) implements JournalRecord {}
}
