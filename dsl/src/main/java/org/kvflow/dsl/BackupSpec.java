package org.kvflow.dsl;

import java.nio.file.Path;
import java.util.Objects;

/**
 * The optional HiCache backup stage (contract §11); the write policy comes from the config. Made by
 * {@link HiCacheBackup}.
 *
 * @param journalDir the directory of the Chronicle Queue journal
 */
public record BackupSpec(Path journalDir) implements StageSpec {
    /** Checks that the directory is given. */
    public BackupSpec {
        Objects.requireNonNull(journalDir, "journalDir");
    }

    @Override public String stage() { return "backup"; }
    @Override public int rank() { return 5; }

    @Override
    public String toString() {
        return "backup(journal " + journalDir + ")";
    }
}
