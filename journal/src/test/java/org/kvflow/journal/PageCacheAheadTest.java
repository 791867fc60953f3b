package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The read-ahead worker holds one descriptor, of the cycle file being written: a new cycle closes
 * the old one's (a cycle deleted behind a checkpoint frees its space), closing closes the last,
 * and the file's bytes are never changed.
 */
class PageCacheAheadTest {
    /** The files this process has open, from /proc/self/fd. */
    private static List<Path> openFiles() throws IOException {
        try (Stream<Path> fds = Files.list(Path.of("/proc/self/fd"))) {
            return fds.map(fd -> {
                try {
                    return Files.readSymbolicLink(fd);
                } catch (IOException e) {
                    return fd; // closed while listed
                }
            }).toList();
        }
    }

    private static void awaitOpen(Path file, boolean open) throws Exception {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (openFiles().contains(file) != open && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertThat(openFiles().contains(file)).as("%s open", file).isEqualTo(open);
    }

    @Test
    void oneDescriptorOfTheCurrentCycleFileAndNoneAfterClose(@TempDir Path dir) throws Exception {
        Path a = Files.write(dir.resolve("a.cq4"), new byte[] {1, 2, 3});
        Path b = Files.write(dir.resolve("b.cq4"), new byte[] {4, 5, 6});
        PageCacheAhead ahead = new PageCacheAhead();
        assertThat(ahead.active()).as("Linux's C library is bound").isTrue();
        ahead.wrote(new File(a.toString()), 0);
        awaitOpen(a.toRealPath(), true);
        ahead.wrote(new File(a.toString()), 1); // within the range asked for: nothing new
        ahead.wrote(new File(b.toString()), 0);
        awaitOpen(a.toRealPath(), false);
        awaitOpen(b.toRealPath(), true);
        ahead.close();
        assertThat(openFiles()).doesNotContain(a.toRealPath(), b.toRealPath());
        assertThat(Files.readAllBytes(a)).containsExactly(1, 2, 3);
        assertThat(Files.readAllBytes(b)).containsExactly(4, 5, 6);
    }
}
