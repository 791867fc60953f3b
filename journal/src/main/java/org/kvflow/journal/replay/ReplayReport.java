package org.kvflow.journal.replay;

import java.util.List;

/**
 * What a replay did: records read, payload bytes restored, records applied, every rejected record
 * with its index and reason, and the damaged cycle files it could read only up to the damage.
 */
public record ReplayReport(long records, long payloadBytes, long applied, int checkpoints, List<Rejected> rejected,
                           List<JournalDamage> damage) {
    public ReplayReport {
        rejected = List.copyOf(rejected);
        damage = List.copyOf(damage);
    }

    /** A record replay refused. */
    public record Rejected(long index, String reason) {}
}
