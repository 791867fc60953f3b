package org.kvflow.dsl;

import java.nio.file.Path;

/** Factories for the backup stage. */
public final class HiCacheBackup {
    private HiCacheBackup() {}

    /**
     * Journal every backup to a Chronicle Queue.
     *
     * @param dir the journal's directory (new or holding a journal of the same layout)
     * @return the stage
     */
    public static BackupSpec journal(Path dir) {
        return new BackupSpec(dir);
    }
}
