package org.kvflow.journal.replay;

/**
 * Where replay begins (contract §11.4): the first record, a given index, the record with a given
 * number (0 is the first), or the first record at or after a time.
 */
public sealed interface ReplayStart permits ReplayStart.FromStart, ReplayStart.FromIndex, ReplayStart.FromRecord, ReplayStart.FromTime {
    /**
     * From the first record.
     *
     * @return the start
     */
    static ReplayStart fromStart() {
        return new FromStart();
    }

    /**
     * From a queue index, which must hold a record.
     *
     * @param index the Chronicle index
     * @return the start
     */
    static ReplayStart fromIndex(long index) {
        return new FromIndex(index);
    }

    /**
     * From the record numbered {@code number} in journal order, 0 being the first.
     *
     * @param number the record number
     * @return the start
     */
    static ReplayStart fromRecord(long number) {
        return new FromRecord(number);
    }

    /**
     * From the first record appended at or after a time.
     *
     * @param epochMillis the time
     * @return the start
     */
    static ReplayStart fromTime(long epochMillis) {
        return new FromTime(epochMillis);
    }

    /** From the first record. */
    record FromStart() implements ReplayStart {}

    /**
     * From a queue index.
     *
     * @param index the index
     */
    record FromIndex(long index) implements ReplayStart {}

    /**
     * From a record number.
     *
     * @param number the number, 0 being the first
     */
    record FromRecord(long number) implements ReplayStart {}

    /**
     * From a time.
     *
     * @param epochMillis the first record at or after it
     */
    record FromTime(long epochMillis) implements ReplayStart {}
}
