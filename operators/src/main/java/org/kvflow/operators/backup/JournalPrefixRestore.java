package org.kvflow.operators.backup;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.journal.record.BackupHeader;
import org.kvflow.journal.replay.JournalReadAhead;
import org.kvflow.journal.replay.JournalReader;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.group.RankStores;

/**
 * Restores a prefix's pages from a HiCache journal straight into a CP group's rank stores (the
 * contract §11.3 load, from disk after a restart): page {@code i} of the prefix, known by its chained
 * hash, goes to logical page {@code pageIds[i]}, stored where {@link RankStores} puts it (its
 * owner's local page under shared KV, every rank when replicated).
 *
 * <p>Each wanted {@code BACKUP} is decoded from the journal's mapped bytes into a host staging
 * store (pinned for {@code cuda}), its CRC32C computed as the bytes land. A full batch of staged
 * pages goes to its ranks in one page copy per rank and pool, on a copier thread, while the reader
 * decodes the next batch into a second staging store. {@code readers} readers run side by side,
 * each with its own tailer, staging pair and copier, reader {@code k} taking the positions
 * {@code i} with {@code i % readers == k} and passing the other records by unread; a read-ahead
 * thread reads the journal's files sequentially up to {@value #READ_AHEAD_WINDOW} bytes ahead of the
 * slowest reader, and no reader goes past it, so a cold restore reads the disk sequentially only. A record whose
 * check fails never reaches a rank store: its staged bytes are dropped and the record is reported.
 * The staging stores are held until {@link #close()}. Blocking; one restore at a time.
 */
public final class JournalPrefixRestore implements AutoCloseable {
    /** The stage name the restore's host⇄device bytes are counted under (its views of the stores and its staging stores). */
    public static final String STAGE = "kvflow.restore";
    /** Pages staged before a batch goes to the ranks, a good default (16 DeepSeek V3.2 pages: 49 MB per staging store). */
    public static final int DEFAULT_BATCH_PAGES = 16;
    /** Journal readers side by side, a good default (on the H200 machine's host, four reached the page cache's pace). */
    public static final int DEFAULT_READERS = 4;
    /** Bytes the journal's files are read ahead of the slowest reader. */
    public static final long READ_AHEAD_WINDOW = 1L << 30;
    /** How far past a record's payload (as the readers count it) the read-ahead must be before a reader touches it: record headers and the next record's header. */
    private static final long READ_AHEAD_MARGIN = 4L << 20;

    private final RankStores stores;
    private final int batchPages;
    private final List<PageStore[]> staging = new ArrayList<>();

    /**
     * Allocates {@code 2 × readers} staging stores of {@code batchPages} pages in the stores' memory.
     *
     * @param stores     where the pages go
     * @param batchPages pages staged before they are copied to the ranks
     * @param readers    journal readers run side by side
     */
    public JournalPrefixRestore(RankStores stores, int batchPages, int readers) {
        this.stores = Objects.requireNonNull(stores, "stores").countedAs(STAGE);
        if (batchPages < 1 || readers < 1) {
            throw new IllegalArgumentException("batchPages and readers must be >= 1, were " + batchPages + ", " + readers);
        }
        this.batchPages = batchPages;
        PageStore like = this.stores.rank(0);
        try {
            for (int k = 0; k < readers; k++) {
                PageStore[] pair = new PageStore[2];
                staging.add(pair);
                for (int s = 0; s < 2; s++) {
                    pair[s] = PageStore.allocateHost(like.memory(), "restore staging " + k + "." + s, like.layout(), like.pageSize(), batchPages)
                            .countedAs(STAGE);
                }
            }
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /**
     * What a restore did.
     *
     * @param pages           pages of the prefix asked for
     * @param restoredPrefix  leading pages with both pools restored: the usable prefix
     * @param payloadBytes    payload bytes copied into the rank stores
     * @param recordsRead     journal records read
     * @param refused         wanted records that failed their checks (index and reason), never stored
     */
    public record Report(int pages, int restoredPrefix, long payloadBytes, long recordsRead, List<ReplayReport.Rejected> refused) {
        /** Copies the refusal list. */
        public Report {
            refused = List.copyOf(refused);
        }
    }

    /**
     * Restores the prefix whose page hashes are {@code pageHashes} into logical pages {@code pageIds}.
     *
     * @param journal    the journal directory
     * @param pageHashes the prefix's chained page hashes, by position
     * @param pageIds    the logical page allotted to each position
     * @return how much of the prefix was restored, and the records refused
     * @throws IllegalArgumentException if the lists differ in length or a hash is not a page hash
     * @throws org.kvflow.journal.JournalIoException if {@code journal} is not a journal
     */
    public Report restore(Path journal, List<byte[]> pageHashes, int[] pageIds) {
        if (pageHashes.size() != pageIds.length) {
            throw new IllegalArgumentException(pageHashes.size() + " page hashes for " + pageIds.length + " page ids");
        }
        Map<String, Integer> positions = new HashMap<>();
        for (int i = 0; i < pageHashes.size(); i++) {
            if (pageHashes.get(i).length != PageHashChain.HASH_BYTES) {
                throw new IllegalArgumentException("page hash " + i + " has " + pageHashes.get(i).length + " bytes, not " + PageHashChain.HASH_BYTES);
            }
            positions.put(PageHashChain.key(pageHashes.get(i)), i);
        }
        int readers = staging.size();
        List<Run> reading = new java.util.concurrent.CopyOnWriteArrayList<>();
        List<Run> runs = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(readers, r -> new Thread(r, "kvflow-restore-read"));
        try (JournalReadAhead ahead = JournalReadAhead.start(journal, READ_AHEAD_WINDOW,
                () -> reading.size() < readers ? 0 : reading.stream().mapToLong(run -> run.passed).min().orElse(0))) {
            List<Callable<Run>> work = new ArrayList<>();
            for (int k = 0; k < readers; k++) {
                Map<String, Integer> mine = new HashMap<>();
                int reader = k;
                positions.forEach((key, position) -> {
                    if (position % readers == reader) {
                        mine.put(key, position);
                    }
                });
                work.add(() -> {
                    Run run = new Run(staging.get(reader), mine, pageIds, ahead);
                    reading.add(run);
                    return read(journal, run);
                });
            }
            for (Future<Run> f : pool.invokeAll(work)) {
                runs.add(f.get());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while a prefix was restored from " + journal, e);
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } finally {
            pool.shutdownNow();
        }
        boolean[][] restored = new boolean[2][pageIds.length];
        Map<Long, ReplayReport.Rejected> refused = new TreeMap<>();
        long bytes = 0;
        for (Run run : runs) {
            for (HiCachePool hicache : HiCachePool.values()) {
                for (int i = 0; i < pageIds.length; i++) {
                    restored[hicache.ordinal()][i] |= run.restored[hicache.ordinal()][i];
                }
            }
            run.refused.forEach(r -> refused.putIfAbsent(r.index(), r));
            bytes += run.bytes;
        }
        int prefix = 0;
        while (prefix < pageIds.length && restored[0][prefix] && restored[1][prefix]) {
            prefix++;
        }
        return new Report(pageIds.length, prefix, bytes, runs.getFirst().records, List.copyOf(refused.values()));
    }

    /** One reader's pass over the journal: decodes its pages into its staging and copies them on. */
    private static Run read(Path journal, Run run) {
        try (run; JournalReader reader = JournalReader.open(journal, ReplayStart.fromStart())) {
            JournalReader.PlacedItem item;
            while ((item = reader.nextBackup(run::buffers)) != null) {
                run.records++;
                if (item.refusal() != null) {
                    run.refuse(item.index(), item.refusal());
                } else if (item.backup() != null && item.backup().placed()) {
                    run.staged(item.backup().header());
                }
            }
            run.flush();
            run.await();
            return run;
        }
    }

    /** Frees the staging stores. */
    @Override
    public void close() {
        for (PageStore[] pair : staging) {
            for (PageStore stage : pair) {
                if (stage != null) {
                    stage.close();
                }
            }
        }
    }

    /** One reader's staging pair, its copier thread and what it has restored so far. */
    private final class Run implements AutoCloseable {
        private final Map<String, Integer> positions;
        private final int[] pageIds;
        private final PageStore[] staging;
        private final ExecutorService copier = Executors.newSingleThreadExecutor(r -> new Thread(r, "kvflow-restore-copy"));
        private final @Nullable Future<?>[] copying = new Future<?>[2];
        private final boolean[][] restored;
        private final List<ReplayReport.Rejected> refused = new ArrayList<>();
        private int current;
        /** Per staging slot of the current store: its prefix position, and which pools hold checked bytes. */
        private final int[] slotPosition;
        private final boolean[][] slotGood;
        private int slots;
        private final Map<Integer, Integer> slotOf = new HashMap<>();
        /** The header whose payload is in flight, and the slot it lands in. */
        private @Nullable BackupHeader pending;
        private int pendingSlot = -1;
        long bytes;
        long records;
        /** Payload bytes of the backups this reader has passed: about how far into the files it is. */
        volatile long passed;
        private final JournalReadAhead ahead;

        Run(PageStore[] staging, Map<String, Integer> positions, int[] pageIds, JournalReadAhead ahead) {
            this.ahead = ahead;
            this.staging = staging;
            this.positions = positions;
            this.pageIds = pageIds;
            this.restored = new boolean[2][pageIds.length];
            this.slotPosition = new int[batchPages];
            this.slotGood = new boolean[2][batchPages];
        }

        /** The staging views a wanted record's payload lands in, or null to pass it by. */
        @Nullable List<ByteBuffer> buffers(BackupHeader header) {
            passed += header.payloadLength();
            ahead.awaitPast(passed + READ_AHEAD_MARGIN); // this record and the next header are cached before they are touched
            Integer position = positions.get(PageHashChain.key(header.pageHash()));
            if (position == null) {
                return null;
            }
            PageStore stage = staging[current];
            KvComponent component = KvComponent.of(header.pool());
            long expected = (long) stage.layers() * stage.pageBytes(component);
            if (header.layerCount() != stage.layers() || header.payloadLength() != expected || header.pageSize() != stage.pageSize()) {
                refuse(header.index(), "page " + header.key() + " of " + header.pageSize() + " tokens x " + header.layerCount() + " layers, "
                        + header.payloadLength() + " B does not fit the stores (" + stage.pageSize() + " x " + stage.layers() + ", " + expected + " B)");
                return null;
            }
            Integer slot = slotOf.get(position);
            if (slot == null) {
                if (slots == batchPages) {
                    flush();
                    stage = staging[current];
                }
                slot = slots++;
                slotOf.put(position, slot);
                slotPosition[slot] = position;
            }
            slotGood[header.pool().ordinal()][slot] = false; // until this record's check passes
            pending = header;
            pendingSlot = slot;
            List<ByteBuffer> views = new ArrayList<>(stage.layers());
            for (int l = 0; l < stage.layers(); l++) {
                views.add(stage.hostView(l, component, slot));
            }
            return views;
        }

        /** The pending record's payload passed its check. */
        void staged(BackupHeader header) {
            if (pending != null && pending.index() == header.index()) {
                slotGood[header.pool().ordinal()][pendingSlot] = true;
            }
            pending = null;
        }

        void refuse(long index, String reason) {
            refused.add(new ReplayReport.Rejected(index, reason));
            pending = null;
        }

        /** Hands the current staging store's checked pages to the copier and moves to the other store. */
        void flush() {
            if (slots == 0) {
                return;
            }
            int s = current;
            PageStore stage = staging[s];
            List<Runnable> copies = new ArrayList<>();
            for (HiCachePool pool : HiCachePool.values()) {
                KvComponent component = KvComponent.of(pool);
                int ranks = stores.ranks();
                List<List<long[]>> byRank = new ArrayList<>();
                for (int r = 0; r < ranks; r++) {
                    byRank.add(new ArrayList<>());
                }
                for (int slot = 0; slot < slots; slot++) {
                    if (!slotGood[pool.ordinal()][slot]) {
                        continue;
                    }
                    int position = slotPosition[slot];
                    int page = pageIds[position];
                    for (int r : stores.ranksStoring(page)) {
                        byRank.get(r).add(new long[] {slot, stores.physicalPage(page)});
                    }
                    restored[pool.ordinal()][position] = true;
                    bytes += (long) stage.layers() * stage.pageBytes(component);
                }
                for (int r = 0; r < ranks; r++) {
                    List<long[]> pairs = byRank.get(r);
                    if (pairs.isEmpty()) {
                        continue;
                    }
                    long[] src = pairs.stream().mapToLong(p -> p[0]).toArray();
                    long[] dst = pairs.stream().mapToLong(p -> p[1]).toArray();
                    PageStore rank = stores.rank(r);
                    copies.add(() -> rank.copyPagesFrom(stage, component, src, dst));
                }
            }
            copying[s] = copier.submit(() -> copies.forEach(Runnable::run));
            current = 1 - s;
            waitFor(current);
            slots = 0;
            slotOf.clear();
            Arrays.fill(slotGood[0], false);
            Arrays.fill(slotGood[1], false);
        }

        /** Waits for both staging stores' copies. */
        void await() {
            waitFor(0);
            waitFor(1);
        }

        private void waitFor(int s) {
            Future<?> f = copying[s];
            if (f == null) {
                return;
            }
            copying[s] = null;
            try {
                f.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while restored pages were copied to the ranks", e);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
            }
        }

        /** Lets the copies in flight end (their staging is reused by the next restore), then stops the copier. */
        @Override
        public void close() {
            copier.shutdown();
            for (int s = 0; s < 2; s++) {
                try {
                    waitFor(s);
                } catch (RuntimeException e) {
                    // reported by await(), or the restore is failing for another reason already
                }
            }
        }
    }
}
