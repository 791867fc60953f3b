package org.kvflow.journal.replay;

/**
 * Where replay begins (SPEC §11.4): the first record, a given index, the record with a given
 * number (0 is the first), or the first record at or after a time.
 */
public sealed interface ReplayStart permits ReplayStart.FromStart, ReplayStart.FromIndex, ReplayStart.FromRecord, ReplayStart.FromTime {
    static ReplayStart fromStart() {
        return new FromStart();
    }

    static ReplayStart fromIndex(long index) {
        return new FromIndex(index);
    }

    /** The record numbered {@code number} in journal order, 0 being the first. */
    static ReplayStart fromRecord(long number) {
        return new FromRecord(number);
    }

    static ReplayStart fromTime(long epochMillis) {
        return new FromTime(epochMillis);
    }

    record FromStart() implements ReplayStart {}

    record FromIndex(long index) implements ReplayStart {}

    record FromRecord(long number) implements ReplayStart {}

    record FromTime(long epochMillis) implements ReplayStart {}
}
