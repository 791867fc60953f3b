package org.kvflow.journal.replay;

/** Where replay begins (SPEC §11.4): the first record, a given index, or the first record at or after a time. */
public sealed interface ReplayStart permits ReplayStart.FromStart, ReplayStart.FromIndex, ReplayStart.FromTime {
    static ReplayStart fromStart() {
        return new FromStart();
    }

    static ReplayStart fromIndex(long index) {
        return new FromIndex(index);
    }

    static ReplayStart fromTime(long epochMillis) {
        return new FromTime(epochMillis);
    }

    record FromStart() implements ReplayStart {}

    record FromIndex(long index) implements ReplayStart {}

    record FromTime(long epochMillis) implements ReplayStart {}
}
