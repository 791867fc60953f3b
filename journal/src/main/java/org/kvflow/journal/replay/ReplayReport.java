package org.kvflow.journal.replay;

import java.util.List;

/**
 * What a replay did: records read, payload bytes restored, records applied, and every rejected
 * record with its index and reason.
 */
public record ReplayReport(long records, long payloadBytes, long applied, int checkpoints, List<Rejected> rejected) {
    public ReplayReport {
        rejected = List.copyOf(rejected);
    }

    /** A record replay refused. */
    public record Rejected(long index, String reason) {}
}
