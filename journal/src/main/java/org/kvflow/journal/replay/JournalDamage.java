package org.kvflow.journal.replay;

/**
 * Damage found in a journal: the cycle file, the index of the first record replay could not read
 * (every record before it was read), the bytes past it that replay had to give up, and why.
 */
public record JournalDamage(String file, long firstBadIndex, long bytesLost, String reason) {
    @Override
    public String toString() {
        return file + " from record " + Long.toHexString(firstBadIndex) + ": " + reason + " (" + bytesLost + " bytes lost)";
    }
}
