package org.kvflow.journal.record;

/** A decoded journal record with the queue index it was read at. */
public sealed interface JournalRecord permits JournalRecord.Backup, JournalRecord.EvictHost, JournalRecord.Checkpoint {
    /**
     * Where the record lies.
     *
     * @return its Chronicle Queue index
     */
    long index();

    /**
     * When the record was appended.
     *
     * @return epoch milliseconds
     */
    long timestampMillis();

    /**
     * {@code BACKUP}: a page of one pool went to the host cache.
     *
     * @param index           its queue index
     * @param timestampMillis when it was appended
     * @param page            the page
     */
    record Backup(long index, long timestampMillis, PageBackup page) implements JournalRecord {}

    /**
     * {@code EVICT_HOST}: both pools of a page left the host cache.
     *
     * @param index           its queue index
     * @param timestampMillis when it was appended
     * @param pageHash        the page's chained hash
     */
    record EvictHost(long index, long timestampMillis, byte[] pageHash) implements JournalRecord {}

    /**
     * {@code CHECKPOINT}: every live page is backed up at or after {@code firstNeededIndex};
     * {@code expectedCrc} is the checksum of the record that held {@code firstNeededIndex} when the
     * checkpoint was written (0 if none), so replay can tell when that index now holds another record.
     *
     * @param index            its queue index
     * @param timestampMillis  when it was appended
     * @param firstNeededIndex the first index replay needs
     * @param expectedCrc      the checksum of the record at that index when the checkpoint was written
     */
    record Checkpoint(long index, long timestampMillis, long firstNeededIndex, int expectedCrc) implements JournalRecord {}
}
