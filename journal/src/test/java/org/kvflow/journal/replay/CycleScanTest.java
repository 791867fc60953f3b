package org.kvflow.journal.replay;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A cycle file of 0 bytes is damage only if it stays empty: a live writer creates the file first and sizes it after. */
class CycleScanTest {
    @TempDir
    Path dir;

    @Test
    void aFileThatStaysEmptyIsDamage() throws Exception {
        Path file = Files.createFile(dir.resolve("20261201-000000.cq4"));
        CycleScan scan = CycleScan.of(file);
        assertThat(scan.damage()).isEqualTo("the cycle file is empty: a cycle that should hold records holds none");
        assertThat(scan.records()).isZero();
    }

    @Test
    void aFileAWriterIsCreatingIsNot() throws Exception {
        Path file = Files.createFile(dir.resolve("20261201-000001.cq4"));
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                TimeUnit.MILLISECONDS.sleep(50);
                Files.write(file, new byte[4096]); // sized, no document yet
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        CycleScan scan = CycleScan.of(file);
        writer.join();
        assertThat(scan.damage()).isNull();
        assertThat(scan.records()).isZero();
        assertThat(scan.size()).isEqualTo(4096);
    }
}
