package org.kvflow.dsl;

import java.nio.file.Path;

/** Factories for the backup stage. */
public final class HiCacheBackup {
    private HiCacheBackup() {}

    /** Journal every backup to a Chronicle Queue in {@code dir}. */
    public static BackupSpec journal(Path dir) {
        return new BackupSpec(dir);
    }
}
