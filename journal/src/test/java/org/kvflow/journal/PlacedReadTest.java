package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.JournalReader;
import org.kvflow.journal.replay.ReplayStart;

/** Decoding BACKUP payloads straight into the caller's buffers ({@link JournalReader#nextBackup}). */
class PlacedReadTest {
    @TempDir
    Path dir;

    private List<Long> write(List<PageBackup> pages) {
        return TestPages.write(dir, pages, 0);
    }

    /** Two direct buffers per payload (one per layer), as a restore into pinned staging asks. */
    private static List<ByteBuffer> halves(int length) {
        return List.of(ByteBuffer.allocateDirect(length / 2), ByteBuffer.allocateDirect(length - length / 2));
    }

    private static byte[] bytesOf(List<ByteBuffer> buffers) {
        ByteBuffer all = ByteBuffer.allocate(buffers.stream().mapToInt(ByteBuffer::capacity).sum());
        buffers.forEach(b -> all.put(b.duplicate().clear()));
        return all.array();
    }

    @Test
    void payloadsLandInTheCallersBuffersAndAFlippedByteIsRefusedByIndex() throws IOException {
        List<PageBackup> pages = TestPages.prompt(7, 4);
        List<Long> indices = write(pages);
        TestPages.flipByteOf(dir, pages.get(5).payload());
        List<List<ByteBuffer>> given = new ArrayList<>();
        List<JournalReader.PlacedItem> items = new ArrayList<>();
        try (JournalReader reader = JournalReader.open(dir, ReplayStart.fromStart())) {
            JournalReader.PlacedItem item;
            while ((item = reader.nextBackup(h -> {
                List<ByteBuffer> b = halves(h.payloadLength());
                given.add(b);
                return b;
            })) != null) {
                items.add(item);
            }
        }
        assertThat(items).hasSize(8);
        for (int i = 0; i < 8; i++) {
            JournalReader.PlacedItem item = items.get(i);
            assertThat(item.index()).isEqualTo(indices.get(i));
            if (i == 5) {
                assertThat(item.backup()).isNull();
                assertThat(item.refusal()).startsWith("crc32c mismatch");
                continue;
            }
            assertThat(item.refusal()).isNull();
            assertThat(item.backup().placed()).isTrue();
            assertThat(item.backup().header().key()).isEqualTo(pages.get(i).key());
            assertThat(item.backup().header().position()).isEqualTo(pages.get(i).position());
            assertThat(bytesOf(given.get(i))).as("record %d's payload", i).isEqualTo(pages.get(i).payload());
        }
    }

    @Test
    void aSkippedPayloadIsNotReadAndTheNextRecordStillDecodes() {
        List<PageBackup> pages = TestPages.prompt(8, 2);
        write(pages);
        try (JournalReader reader = JournalReader.open(dir, ReplayStart.fromStart())) {
            List<ByteBuffer> kept = new ArrayList<>();
            JournalReader.PlacedItem item;
            int placed = 0;
            int skipped = 0;
            while ((item = reader.nextBackup(h -> {
                if (h.pool() == HiCachePool.INDEXER) {
                    return null;
                }
                ByteBuffer b = ByteBuffer.allocate(h.payloadLength());
                kept.add(b);
                return List.of(b);
            })) != null) {
                if (item.backup().placed()) {
                    placed++;
                } else {
                    assertThat(item.backup().header().pool()).isEqualTo(HiCachePool.INDEXER);
                    skipped++;
                }
            }
            assertThat(placed).isEqualTo(2);
            assertThat(skipped).isEqualTo(2);
            assertThat(kept.get(1).array()).isEqualTo(pages.get(2).payload());
        }
    }

    @Test
    void buffersThatDoNotHoldThePayloadAreRefusedBeforeAByteMoves() {
        List<PageBackup> pages = TestPages.prompt(9, 1);
        List<Long> indices = write(pages);
        int length = pages.getFirst().payload().length;
        ByteBuffer small = ByteBuffer.allocate(length - 1);
        try (JournalReader reader = JournalReader.open(dir, ReplayStart.fromStart())) {
            assertThatThrownBy(() -> reader.nextBackup(h -> List.of(small)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("buffers for " + pages.getFirst().key() + " at index " + Long.toHexString(indices.getFirst()) + " hold "
                            + (length - 1) + " bytes, its payload " + length);
        }
        assertThat(small.position()).isZero();
        assertThat(small.array()).containsOnly((byte) 0);
    }
}
