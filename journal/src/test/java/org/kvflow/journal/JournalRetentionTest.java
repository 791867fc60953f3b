package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;

/** Checkpoints: live pages re-appended, old cycles deleted, and a checkpoint that names a reused index reported. */
class JournalRetentionTest {
    @TempDir
    Path dir;

    @Test
    void checkpointDeletesOldCyclesAndReplayStillRestoresEveryLivePage() throws Exception {
        long[] clock = {1_700_000_000_000L};
        JournalOptions options = new JournalOptions(dir, TestPages.LAYOUT, RollPeriod.SECONDLY, () -> clock[0], true);
        List<PageBackup> first = TestPages.prompt(1, 3);
        List<PageBackup> second = TestPages.prompt(2, 3);
        try (HiCacheJournal journal = HiCacheJournal.open(options)) {
            for (PageBackup page : first) {
                journal.backup(page, TestPages.locs(page.position()));
            }
            clock[0] += 1_000;
            for (PageBackup page : second) {
                journal.backup(page, TestPages.locs(page.position()));
            }
            journal.evictHost(first.get(4).pageHash()); // page 2 of the first prompt: both pools
            clock[0] += 1_000;
            assertThat(cycleFiles()).isEqualTo(2);
            journal.checkpointCurrentCycle();
        }
        assertThat(cycleFiles()).as("cycles before the checkpoint's first needed index are gone").isEqualTo(1);
        HostPageCache cache = new HostPageCache(1L << 30);
        ReplayReport report = JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL, cache, (n, b) -> { });
        assertThat(report.checkpoints()).isEqualTo(1);
        assertThat(report.rejected()).isEmpty();
        for (PageBackup page : second) {
            assertThat(cache.get(page.pageHash(), page.pool())).isEqualTo(page);
        }
        for (int i = 0; i < first.size(); i++) {
            PageBackup page = first.get(i);
            if (i >= 4) {
                assertThat(cache.get(page.pageHash(), page.pool())).as("evicted before the checkpoint").isNull();
            } else {
                assertThat(cache.get(page.pageHash(), page.pool())).isEqualTo(page);
            }
        }
        assertThat(cache.usable(second.get(4).pageHash())).isTrue();
    }

    @Test
    void aCheckpointNamingAnIndexThatNowHoldsAnotherRecordIsReported() {
        List<PageBackup> pages = TestPages.prompt(3, 2);
        long named;
        try (HiCacheJournal journal = HiCacheJournal.open(TestPages.options(dir))) {
            named = journal.backup(pages.get(0), TestPages.locs(0));
            journal.backup(pages.get(1), TestPages.locs(0));
            journal.checkpoint(named);
        }
        ReplayReport clean = JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP,
                new HostPageCache(1L << 30), (n, b) -> { });
        assertThat(clean.rejected()).isEmpty();
        assertThat(clean.checkpoints()).isEqualTo(1);
        // a checkpoint stored before a crash names an index whose record was torn and reused: its CRC differs
        long stale;
        try (net.openhft.chronicle.queue.impl.single.SingleChronicleQueue queue =
                     net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder.single(dir.toFile()).build();
             net.openhft.chronicle.queue.ExcerptAppender appender = queue.createAppender()) {
            try (net.openhft.chronicle.wire.DocumentContext dc = appender.writingDocument()) {
                new org.kvflow.journal.record.RecordCodec().writeCheckpoint(dc.wire().bytes(), named, 0x1234567, 5L);
            }
            stale = appender.lastIndexAppended();
        }
        ReplayReport report = JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP,
                new HostPageCache(1L << 30), (n, b) -> { });
        assertThat(report.rejected()).singleElement().satisfies(r -> {
            assertThat(r.index()).isEqualTo(stale);
            assertThat(r.reason()).isEqualTo("checkpoint names index " + Long.toHexString(named) + ", which now holds a different record");
        });
    }

    private long cycleFiles() throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".cq4")).count();
        }
    }
}
