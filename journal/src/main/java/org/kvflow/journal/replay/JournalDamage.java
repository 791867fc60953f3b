package org.kvflow.journal.replay;

/**
 * Damage found in a journal: the cycle file, the index of the first record replay could not read
 * (every record before it was read), the bytes past it that replay had to give up, and why.
 *
 * @param file          the cycle file
 * @param firstBadIndex the first index replay could not read
 * @param bytesLost     the bytes past it given up
 * @param reason        why
 */
public record JournalDamage(String file, long firstBadIndex, long bytesLost, String reason) {
    @Override
    public String toString() {
        return file + " from record " + Long.toHexString(firstBadIndex) + ": " + reason + " (" + bytesLost + " bytes lost)";
    }
}
