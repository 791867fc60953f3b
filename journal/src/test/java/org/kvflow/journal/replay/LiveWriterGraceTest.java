package org.kvflow.journal.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.kvflow.journal.JournalIoException;
import org.junit.jupiter.api.io.TempDir;

/**
 * A file a live writer is still creating is not damage: a cycle file of 0 bytes, or a table store
 * whose header is not written yet, is damage only if it stays so past the grace.
 */
class LiveWriterGraceTest {
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

    @Test
    void aTableStoreWhoseHeaderIsBeingWrittenIsWaitedFor() throws Exception {
        Path metadata = dir.resolve(ReadableJournal.METADATA);
        Files.write(metadata, new byte[4096]);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (FileChannel ch = FileChannel.open(metadata, StandardOpenOption.WRITE)) {
                TimeUnit.MILLISECONDS.sleep(50);
                ch.write(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 0x40000010), 0); // metadata, 16 bytes, complete
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        });
        try (ReadableJournal journal = ReadableJournal.of(dir)) {
            assertThat(journal.dir()).as("read in place").isEqualTo(dir);
        }
        writer.join();
        Files.write(metadata, new byte[4096]);
        assertThatThrownBy(() -> ReadableJournal.of(dir)).isInstanceOf(JournalIoException.class)
                .hasMessage(metadata + " is damaged: it does not start with a Chronicle table-store header (4096 bytes, first word 0x0);"
                        + " replay cannot read the cycles without it");
    }
}
