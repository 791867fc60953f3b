package org.kvflow.journal.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ReplayCopiesTest {
    @Test
    void aCopyWhoseProcessIsGoneIsRemovedBeforeTheNextIsMade(@TempDir Path root) throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path abandoned = Files.createDirectories(root.resolve(ReplayCopies.PREFIX + gone.pid() + "-123"));
        Files.writeString(Files.createDirectories(abandoned.resolve("sub")).resolve("20261203.cq4"), "bytes of a killed replay");
        Path live = Files.createDirectories(root.resolve(ReplayCopies.PREFIX + ProcessHandle.current().pid() + "-456"));
        Path foreign = Files.createDirectories(root.resolve(ReplayCopies.PREFIX + "notapid"));

        Path made = ReplayCopies.create(root);

        assertThat(abandoned).as("the killed replay's copy").doesNotExist();
        assertThat(live).as("a running process's copy stays").exists();
        assertThat(foreign).as("a name that is not ours stays").exists();
        assertThat(made.getFileName().toString()).startsWith(ReplayCopies.PREFIX + ProcessHandle.current().pid() + "-");
    }
}
