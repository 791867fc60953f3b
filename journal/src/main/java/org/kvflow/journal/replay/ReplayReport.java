package org.kvflow.journal.replay;

import java.util.List;

/**
 * What a replay did: records read, payload bytes restored, records applied, every rejected record
 * with its index and reason, and the damaged cycle files it could read only up to the damage.
 *
 * @param records      records read
 * @param payloadBytes payload bytes restored
 * @param applied      records applied to the cache
 * @param checkpoints  checkpoints met
 * @param rejected     every refused record
 * @param damage       damaged cycle files
 */
public record ReplayReport(long records, long payloadBytes, long applied, int checkpoints, List<Rejected> rejected,
                           List<JournalDamage> damage) {
    /** Copies the lists. */
    public ReplayReport {
        rejected = List.copyOf(rejected);
        damage = List.copyOf(damage);
    }

    /**
     * A record replay refused.
     *
     * @param index  its queue index
     * @param reason why
     */
    public record Rejected(long index, String reason) {}
}
