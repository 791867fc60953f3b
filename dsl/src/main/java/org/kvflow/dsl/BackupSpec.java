package org.kvflow.dsl;

import java.nio.file.Path;
import java.util.Objects;

/** The optional HiCache backup stage (SPEC §11): journal directory; policy from the config. Made by {@link HiCacheBackup}. */
public record BackupSpec(Path journalDir) implements StageSpec {
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
