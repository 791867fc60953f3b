package org.kvflow.journal;

import net.openhft.chronicle.queue.RollCycle;
import net.openhft.chronicle.queue.RollCycles;
import net.openhft.chronicle.queue.rollcycles.TestRollCycles;

/** How often the journal starts a new cycle file; old cycles can be deleted behind a checkpoint. */
public enum RollPeriod {
    /** One cycle per second: tests only. */
    SECONDLY(TestRollCycles.TEST_SECONDLY),
    /** One cycle every five minutes. */
    FIVE_MINUTELY(RollCycles.FIVE_MINUTELY),
    /** One cycle per hour. */
    HOURLY(RollCycles.FAST_HOURLY),
    /** One cycle per day, the default. */
    DAILY(RollCycles.FAST_DAILY);

    private final RollCycle cycle;

    RollPeriod(RollCycle cycle) {
        this.cycle = cycle;
    }

    RollCycle cycle() {
        return cycle;
    }
}
