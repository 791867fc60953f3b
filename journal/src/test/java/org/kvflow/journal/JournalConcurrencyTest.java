package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;

/** Ranks appending at once while a tailer reads live (left out of mutation runs: its threads time out under mutants). */
class JournalConcurrencyTest {
    @TempDir
    Path dir;

    @Test
    void ranksAppendConcurrentlyWhileATailerReadsLive() throws Exception {
        int ranks = 4;
        int pagesPerRank = 150;
        ExecutorService pool = Executors.newFixedThreadPool(ranks + 1);
        CountDownLatch start = new CountDownLatch(1);
        Set seen = new Set();
        try {
            List<Future<List<Long>>> writers = new ArrayList<>();
            for (int r = 0; r < ranks; r++) {
                int rank = r;
                writers.add(pool.submit(() -> {
                    List<Long> indices = new ArrayList<>();
                    try (HiCacheJournal journal = HiCacheJournal.open(TestPages.options(dir))) {
                        start.await();
                        for (PageBackup page : TestPages.prompt(1000 + rank, pagesPerRank)) {
                            indices.add(journal.backup(page, TestPages.locs(page.position())));
                        }
                    }
                    return indices;
                }));
            }
            Future<?> tailer = pool.submit(() -> {
                // a live reader: polls until it has seen every record
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (seen.size() < ranks * pagesPerRank * 2 && System.nanoTime() < deadline) {
                    HostPageCache cache = new HostPageCache(1L << 30);
                    if (Files.exists(dir.resolve(JournalLayout.FILE))) {
                        JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL, cache, (n, b) -> { });
                        seen.addAll(cache.keys());
                    }
                }
                return null;
            });
            start.countDown();
            List<Long> all = new ArrayList<>();
            for (Future<List<Long>> w : writers) {
                all.addAll(w.get(60, TimeUnit.SECONDS));
            }
            tailer.get(60, TimeUnit.SECONDS);
            assertThat(all).doesNotHaveDuplicates().hasSize(ranks * pagesPerRank * 2);
            assertThat(seen.size()).isEqualTo(ranks * pagesPerRank * 2);
        } finally {
            pool.shutdownNow();
        }
        HostPageCache cache = new HostPageCache(1L << 30);
        ReplayReport report = JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL, cache, (n, b) -> { });
        assertThat(report.records()).isEqualTo(ranks * pagesPerRank * 2);
        for (int r = 0; r < ranks; r++) {
            for (PageBackup page : TestPages.prompt(1000 + r, pagesPerRank)) {
                assertThat(cache.get(page.pageHash(), page.pool())).isEqualTo(page);
            }
        }
    }

    /** A thread-safe set of keys. */
    private static final class Set {
        private final java.util.Set<String> keys = ConcurrentHashMap.newKeySet();

        void addAll(List<String> more) {
            keys.addAll(more);
        }

        int size() {
            return keys.size();
        }
    }
}
