package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalCorruptionException;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;

/** contract §11.4 and §15 item 42. */
class JournalRoundTripTest {
    @TempDir
    Path dir;

    private List<Long> write(List<PageBackup> pages) {
        return TestPages.write(dir, pages, 10);
    }

    private ReplayReport replay(HostPageCache cache) {
        return JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP, cache, (r, b) -> { });
    }

    @Test
    void replayRestoresEveryPageBitExactAndIsIdempotent() {
        List<PageBackup> pages = TestPages.prompt(1, 5);
        write(pages);
        HostPageCache cache = new HostPageCache(1 << 20);
        ReplayReport report = replay(cache);
        assertThat(report.records()).isEqualTo(10);
        assertThat(report.rejected()).isEmpty();
        for (PageBackup page : pages) {
            assertThat(cache.get(page.pageHash(), page.pool())).isEqualTo(page);
        }
        List<byte[]> chain = pages.stream().filter(p -> p.pool() == HiCachePool.KV).map(PageBackup::pageHash).toList();
        assertThat(cache.matchPrefix(chain)).isEqualTo(5);
        List<String> keys = cache.keys();
        ReplayReport again = replay(cache);
        assertThat(again.rejected()).isEmpty();
        assertThat(cache.keys()).isEqualTo(keys);
    }

    @Test
    void bothPoolsOfOneHashAreNotACorruptionAndEvictRemovesBoth() {
        List<PageBackup> pages = TestPages.prompt(2, 2);
        write(pages);
        try (HiCacheJournal journal = HiCacheJournal.open(TestPages.options(dir))) {
            journal.evictHost(pages.get(2).pageHash());
        }
        HostPageCache cache = new HostPageCache(1 << 20);
        assertThat(replay(cache).rejected()).isEmpty();
        assertThat(cache.get(pages.get(2).pageHash(), HiCachePool.KV)).isNull();
        assertThat(cache.get(pages.get(3).pageHash(), HiCachePool.INDEXER)).isNull();
        assertThat(cache.usable(pages.get(0).pageHash())).isTrue();
        assertThat(cache.matchPrefix(List.of(pages.get(0).pageHash(), pages.get(2).pageHash()))).isEqualTo(1);
    }

    @Test
    void aPageIsUsableOnlyWithBothPoolsAndItsParents() {
        List<PageBackup> pages = TestPages.prompt(3, 3);
        HostPageCache cache = new HostPageCache(1 << 20);
        cache.put(pages.get(2)); // page 1 kv
        cache.put(pages.get(3)); // page 1 indexer
        assertThat(cache.usable(pages.get(2).pageHash())).as("parent missing").isFalse();
        cache.put(pages.get(0));
        assertThat(cache.usable(pages.get(2).pageHash())).as("parent has one pool").isFalse();
        cache.put(pages.get(1));
        assertThat(cache.usable(pages.get(2).pageHash())).isTrue();
    }

    @Test
    void flippedByteIsReportedByIndexAndTheRestIsRestored() throws IOException {
        List<PageBackup> pages = TestPages.prompt(4, 4);
        List<Long> indices = write(pages);
        TestPages.flipByteOf(dir, pages.get(5).payload());
        HostPageCache cache = new HostPageCache(1 << 20);
        ReplayReport report = replay(cache);
        assertThat(report.rejected()).hasSize(1);
        assertThat(report.rejected().getFirst().index()).isEqualTo(indices.get(5));
        assertThat(report.rejected().getFirst().reason()).startsWith("crc32c mismatch");
        assertThat(report.applied()).isEqualTo(7);
        assertThat(cache.get(pages.get(5).pageHash(), pages.get(5).pool())).isNull();
        assertThat(cache.get(pages.get(6).pageHash(), pages.get(6).pool())).isEqualTo(pages.get(6));
        assertThatThrownBy(() -> JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL,
                new HostPageCache(1 << 20), (r, b) -> { }))
                .isInstanceOfSatisfying(JournalCorruptionException.class, e -> assertThat(e.index()).isEqualTo(indices.get(5)))
                .hasMessageMatching("journal record " + Long.toHexString(indices.get(5)) + ": crc32c mismatch \\(stored [0-9a-f]+, computed [0-9a-f]+\\)");
    }

    @Test
    void newerFormatVersionAndWrongPayloadLengthAreRefusedByIndex() {
        List<PageBackup> pages = TestPages.prompt(5, 1);
        write(pages);
        long newer;
        long shortPayload;
        try (SingleChronicleQueue queue = SingleChronicleQueueBuilder.single(dir.toFile()).build();
             ExcerptAppender appender = queue.createAppender()) {
            try (DocumentContext dc = appender.writingDocument()) {
                dc.wire().bytes().writeByte((byte) 2).writeShort((short) 2).write(new byte[40]);
            }
            newer = appender.lastIndexAppended();
            PageBackup page = pages.get(0);
            PageBackup wrong = new PageBackup(page.pageHash(), null, page.tokenIds(), 0, 0, 2, HiCachePool.KV, new byte[17]);
            try (DocumentContext dc = appender.writingDocument()) {
                new org.kvflow.journal.record.RecordCodec().writeBackup(dc.wire().bytes(), wrong, 1L);
            }
            shortPayload = appender.lastIndexAppended();
        }
        ReplayReport report = replay(new HostPageCache(1 << 20));
        assertThat(report.rejected()).extracting(ReplayReport.Rejected::index).containsExactly(newer, shortPayload);
        assertThat(report.rejected().get(0).reason()).isEqualTo("format version 2 is not supported (this build reads 1)");
        assertThat(report.rejected().get(1).reason()).isEqualTo("payload length 17 != expected 480 for pool kv");
        assertThat(report.applied()).isEqualTo(2);
    }

    @Test
    void sameKeyWithDifferentBytesIsACorruption() {
        PageBackup page = TestPages.prompt(6, 1).getFirst();
        byte[] other = page.payload();
        other[0] ^= 1;
        write(List.of(page, new PageBackup(page.pageHash(), null, page.tokenIds(), 0, 0, 2, page.pool(), other)));
        ReplayReport report = replay(new HostPageCache(1 << 20));
        assertThat(report.rejected()).singleElement().satisfies(r -> assertThat(r.reason()).endsWith("backed up again with different bytes"));
    }

    @Test
    void malformedGroupsOrLayoutsAreRejectedBeforeWriting() {
        PageBackup page = TestPages.prompt(7, 1).getFirst();
        try (HiCacheJournal journal = HiCacheJournal.open(TestPages.options(dir))) {
            long before = journal.lastIndex();
            String context = "journal backup " + page.key().substring(0, 12) + " pos 0: ";
            assertThatThrownBy(() -> journal.backup(page, new long[] {8, 9, 11, 10}))
                    .isInstanceOf(PageGroupValidationException.class)
                    .hasMessage(context + "NON_CONTIGUOUS group 0 offset 2: 11 breaks the run (expected first + 2)");
            assertThatThrownBy(() -> journal.backup(page, new long[] {8, 9, 10, 11, 12, 13, 14, 15}))
                    .hasMessage(context + "a backup is one page, the locs hold 2");
            PageBackup wrongLayers = new PageBackup(page.pageHash(), null, page.tokenIds(), 0, 0, 3, page.pool(), page.payload());
            assertThatThrownBy(() -> journal.backup(wrongLayers, TestPages.locs(2)))
                    .hasMessage(context + "expected 4 tokens, 2 layers and 480 payload bytes for pool kv; got 4, 3, 480");
            assertThat(journal.lastIndex()).isEqualTo(before);
        }
    }

    @Test
    void replayFromAnIndexOrATime() {
        List<PageBackup> pages = TestPages.prompt(8, 3);
        long[] clock = {1_000};
        List<Long> indices = new ArrayList<>();
        JournalOptions options = new JournalOptions(dir, TestPages.LAYOUT, RollPeriod.DAILY, () -> clock[0], true);
        try (HiCacheJournal journal = HiCacheJournal.open(options)) {
            for (PageBackup page : pages) {
                clock[0] += 10;
                indices.add(journal.backup(page, TestPages.locs(1)));
            }
        }
        HostPageCache fromIndex = new HostPageCache(1 << 20);
        assertThat(JournalReplayer.replay(dir, ReplayStart.fromIndex(indices.get(4)), JournalReplayer.OnCorrupt.FAIL, fromIndex,
                (r, b) -> { }).records()).isEqualTo(2);
        assertThat(fromIndex.size()).isEqualTo(2);
        HostPageCache fromRecord = new HostPageCache(1 << 20);
        assertThat(JournalReplayer.replay(dir, ReplayStart.fromRecord(4), JournalReplayer.OnCorrupt.FAIL, fromRecord, (r, b) -> { }).records())
                .as("records 4 and 5 of six").isEqualTo(2);
        assertThatThrownBy(() -> JournalReplayer.replay(dir, ReplayStart.fromRecord(7), JournalReplayer.OnCorrupt.FAIL, new HostPageCache(1 << 20),
                (r, b) -> { })).isInstanceOf(IllegalArgumentException.class).hasMessage("no record number 7 in " + dir + ": it holds 6 records");
        HostPageCache fromTime = new HostPageCache(1 << 20);
        assertThat(JournalReplayer.replay(dir, ReplayStart.fromTime(1_035), JournalReplayer.OnCorrupt.FAIL, fromTime,
                (r, b) -> { }).records()).isEqualTo(3);
        assertThatThrownBy(() -> JournalReplayer.replay(dir, ReplayStart.fromIndex(indices.get(5) + 7), JournalReplayer.OnCorrupt.FAIL,
                new HostPageCache(1 << 20), (r, b) -> { })).isInstanceOf(IllegalArgumentException.class).hasMessage("no record at index " + Long.toHexString(indices.get(5) + 7) + " in " + dir);
    }

    @Test
    void hostCacheStaysWithinItsCapacity() {
        List<PageBackup> pages = TestPages.prompt(9, 4);
        HostPageCache cache = new HostPageCache(1000);
        pages.forEach(cache::put);
        assertThat(cache.bytes()).isLessThanOrEqualTo(1000);
        assertThat(cache.evictedForSpace()).isPositive();
    }

    @Test
    void journalOfAnotherLayoutIsRefused() {
        write(TestPages.prompt(10, 1));
        JournalLayout other = new JournalLayout(8, TestPages.LAYOUT.layout());
        assertThatThrownBy(() -> HiCacheJournal.open(new JournalOptions(dir, other, RollPeriod.DAILY, System::currentTimeMillis, true)))
                .isInstanceOf(JournalIoException.class).hasMessage(dir + " holds a journal of ps 4, toy-mla 2 layers 40+8/24 fp8_e4m3, not ps 8, toy-mla 2 layers 40+8/24 fp8_e4m3");
    }
}
