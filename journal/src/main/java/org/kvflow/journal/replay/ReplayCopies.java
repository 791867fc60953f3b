package org.kvflow.journal.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.kvflow.core.FileTrees;

/**
 * The temporary folders a replay of a damaged journal reads its intact copy from, named after the
 * process that made them ({@code kvflow-replay-<pid>-<random>}). A replay that is killed cannot
 * remove its own; the next one removes every copy whose process is gone before it makes its own.
 */
final class ReplayCopies {
    static final String PREFIX = "kvflow-replay-";

    private ReplayCopies() {}

    /** A new folder under {@code root}, after removing the copies of processes that are gone. */
    static Path create(Path root) throws IOException {
        removeAbandoned(root);
        return Files.createTempDirectory(root, PREFIX + ProcessHandle.current().pid() + "-");
    }

    /** Removes every copy under {@code root} whose process is not running; others' and unparseable names stay. */
    static void removeAbandoned(Path root) throws IOException {
        try (Stream<Path> entries = Files.list(root)) {
            for (Path dir : entries.filter(p -> p.getFileName().toString().startsWith(PREFIX) && Files.isDirectory(p)).toList()) {
                String rest = dir.getFileName().toString().substring(PREFIX.length());
                int dash = rest.indexOf('-');
                long pid;
                try {
                    pid = Long.parseLong(dash < 0 ? rest : rest.substring(0, dash));
                } catch (NumberFormatException e) {
                    continue; // not one of ours
                }
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    continue;
                }
                FileTrees.delete(dir);
            }
        }
    }
}
