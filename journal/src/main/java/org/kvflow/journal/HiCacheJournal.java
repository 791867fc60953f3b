package org.kvflow.journal;

import java.util.stream.Stream;
import java.util.List;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.validate.PageGroups;
import org.kvflow.journal.record.JournalRecord;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.record.RecordCodec;
import org.kvflow.journal.record.RecordDecodeException;

/**
 * The HiCache backup journal's writer (contract §11.4): {@code BACKUP}, {@code EVICT_HOST} and
 * {@code CHECKPOINT} records appended to a Chronicle Queue. Every method blocks until its record
 * is appended and returns the record's index only then, so an index a caller holds always names a
 * completed record (Chronicle reuses a torn record's index after a crash, docs/decisions.md D12). Free space
 * is checked before every append, because Chronicle writes through memory maps. Several journals
 * (one per rank, in one or several processes) may append to one directory. Methods are synchronized.
 */
public final class HiCacheJournal implements AutoCloseable {
    private final JournalOptions options;
    private final SingleChronicleQueue queue;
    private final ExcerptAppender appender;
    /** Computes each backup's checksum while the appending thread copies the record into the map. */
    private final ExecutorService checksums = Executors.newSingleThreadExecutor(
            task -> Thread.ofPlatform().daemon().name("kvflow-journal-checksum").unstarted(task));
    private final RecordCodec codec = new RecordCodec(checksums);
    private final Map<Integer, File> cycleFiles = new TreeMap<>();
    private final long reserveBytes;
    private final MappingPrefault prefault = new MappingPrefault();

    private HiCacheJournal(JournalOptions options) {
        this.options = options;
        Path dir = options.dir();
        prepareDirectory(dir);
        options.layout().writeOrCheck(dir);
        this.reserveBytes = 2 * options.blockSize();
        checkFreeSpace("opening " + dir, reserveBytes);
        try {
            this.queue = SingleChronicleQueueBuilder.single(dir.toFile())
                    .rollCycle(options.roll().cycle())
                    .timeProvider(options.clockMillis()::getAsLong)
                    .blockSize(options.blockSize())
                    .storeFileListener(new net.openhft.chronicle.queue.impl.StoreFileListener() {
                        @Override
                        public void onAcquired(int cycle, File file) {
                            synchronized (cycleFiles) {
                                cycleFiles.put(cycle, file);
                            }
                        }

                        @Override
                        public void onReleased(int cycle, File file) {
                            // files stay listed until deleted behind a checkpoint
                        }
                    })
                    .build();
            this.appender = queue.createAppender();
        } catch (RuntimeException e) {
            throw new JournalIoException("cannot open the journal at " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Opens (creating if needed) the journal described by {@code options}.
     *
     * @param options where, which layout, how it rolls and its clock
     * @return the open journal; close it
     * @throws JournalIoException   if the location is unusable or holds a journal of another layout
     * @throws JournalFullException if there is not room for two blocks
     */
    public static HiCacheJournal open(JournalOptions options) {
        return new HiCacheJournal(Objects.requireNonNull(options, "options"));
    }

    /**
     * What the journal's pages are.
     *
     * @return the layout recorded in its directory
     */
    public JournalLayout layout() {
        return options.layout();
    }

    /**
     * Appends a {@code BACKUP}.
     *
     * @param page       the page of one pool, every layer
     * @param sourceLocs the device token indices the page was read from: validated as exactly one
     *                   page-aligned group (contract §9) before anything is written
     * @return the record's index, once it is complete
     * @throws org.kvflow.core.validate.PageGroupValidationException for a malformed group
     * @throws IllegalArgumentException if the payload or page size does not match the journal's layout
     * @throws JournalFullException     if the record would not fit the free space
     */
    public synchronized long backup(PageBackup page, long[] sourceLocs) {
        JournalLayout layout = options.layout();
        String context = "journal backup " + PageHashChain.key(page.pageHash()).substring(0, 12) + " pos " + page.position();
        int groups = PageGroups.validatePageAlignedTokenIndices(sourceLocs, layout.pageSize(), context);
        if (groups != 1) {
            throw new IllegalArgumentException(context + ": a backup is one page, the locs hold " + groups);
        }
        if (page.tokenIds().length != layout.pageSize() || page.layerCount() != layout.layers()
                || page.payloadLength() != layout.payloadBytes(page.pool())) {
            throw new IllegalArgumentException(context + ": expected " + layout.pageSize() + " tokens, " + layout.layers()
                    + " layers and " + layout.payloadBytes(page.pool()) + " payload bytes for pool " + page.pool().wireName()
                    + "; got " + page.tokenIds().length + ", " + page.layerCount() + ", " + page.payloadLength());
        }
        checkFreeSpace(context, options.largestRecordBytes() + reserveBytes);
        claimAppender();
        try (DocumentContext dc = appender.writingDocument()) {
            codec.writeBackup(dc.wire().bytes(), page, options.clockMillis().getAsLong());
            prefault.wrote(dc.wire().bytes());
        } catch (RuntimeException e) {
            throw new JournalIoException(context + ": append failed: " + e.getMessage(), e);
        }
        return appender.lastIndexAppended();
    }

    /**
     * Appends an {@code EVICT_HOST}: both pools of the page left the host cache.
     *
     * @param pageHash the page's chained hash (32 bytes)
     * @return the record's index
     */
    public synchronized long evictHost(byte[] pageHash) {
        if (pageHash.length != PageHashChain.HASH_BYTES) {
            throw new IllegalArgumentException("pageHash must be " + PageHashChain.HASH_BYTES + " bytes, was " + pageHash.length);
        }
        checkFreeSpace("journal evict", reserveBytes);
        claimAppender();
        try (DocumentContext dc = appender.writingDocument()) {
            codec.writeEvict(dc.wire().bytes(), pageHash, options.clockMillis().getAsLong());
        } catch (RuntimeException e) {
            throw new JournalIoException("journal evict: append failed: " + e.getMessage(), e);
        }
        return appender.lastIndexAppended();
    }

    /**
     * Writes a {@code CHECKPOINT} (contract §11.4): first re-appends the latest {@code BACKUP} of every
     * live page whose latest backup lies before {@code firstNeededIndex}, then the checkpoint; with
     * {@link JournalOptions#deleteBehindCheckpoint()} it then deletes the cycle files wholly before
     * {@code firstNeededIndex}, so replay from the start still restores every live page.
     *
     * @param firstNeededIndex the first index replay will need; at most the next index to be written
     * @return the checkpoint's index
     */
    public synchronized long checkpoint(long firstNeededIndex) {
        long next = nextIndex();
        if (firstNeededIndex > next) {
            throw new IllegalArgumentException("firstNeededIndex " + Long.toHexString(firstNeededIndex)
                    + " lies beyond the next index " + Long.toHexString(next));
        }
        claimAppender();
        Map<String, Long> latest = new HashMap<>();
        int expectedCrc = 0;
        try (ExcerptTailer tailer = queue.createTailer()) {
            RecordCodec reader = new RecordCodec();
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        break;
                    }
                    long index = dc.index();
                    RecordCodec.Decoded decoded;
                    try {
                        decoded = reader.read(dc.wire().bytes(), index);
                    } catch (RecordDecodeException e) {
                        continue; // corrupt records are not live pages; replay reports them
                    }
                    switch (decoded.record()) {
                        case JournalRecord.Backup b -> latest.put(b.page().key(), index);
                        case JournalRecord.EvictHost e -> {
                            String hash = PageHashChain.key(e.pageHash());
                            latest.keySet().removeIf(k -> k.startsWith(hash + ":"));
                        }
                        case JournalRecord.Checkpoint c -> { }
                    }
                }
            }
            for (Map.Entry<String, Long> live : latest.entrySet()) {
                if (live.getValue() < firstNeededIndex) {
                    reappend(tailer, reader, live.getValue());
                }
            }
            // the record now at firstNeededIndex (a re-appended one, possibly): replay checks it is still there
            if (tailer.moveToIndex(firstNeededIndex)) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (dc.isPresent()) {
                        expectedCrc = reader.read(dc.wire().bytes(), dc.index()).crc();
                    }
                } catch (RecordDecodeException e) {
                    throw new JournalIoException("checkpoint: the record at " + Long.toHexString(firstNeededIndex) + " is corrupt: "
                            + e.getMessage(), e);
                }
            }
        }
        checkFreeSpace("journal checkpoint", reserveBytes);
        long index;
        try (DocumentContext dc = appender.writingDocument()) {
            codec.writeCheckpoint(dc.wire().bytes(), firstNeededIndex, expectedCrc, options.clockMillis().getAsLong());
        }
        index = appender.lastIndexAppended();
        if (options.deleteBehindCheckpoint()) {
            deleteCyclesBefore(queue.rollCycle().toCycle(firstNeededIndex));
        }
        return index;
    }

    private void reappend(ExcerptTailer tailer, RecordCodec reader, long index) {
        if (!tailer.moveToIndex(index)) {
            throw new JournalIoException("checkpoint: live record " + Long.toHexString(index) + " cannot be read back");
        }
        try (DocumentContext dc = tailer.readingDocument()) {
            JournalRecord.Backup backup = (JournalRecord.Backup) reader.read(dc.wire().bytes(), index).record();
            checkFreeSpace("journal checkpoint", options.largestRecordBytes() + reserveBytes);
            try (DocumentContext out = appender.writingDocument()) {
                codec.writeBackup(out.wire().bytes(), backup.page(), options.clockMillis().getAsLong());
            }
        }
    }

    private void deleteCyclesBefore(int firstCycle) {
        synchronized (cycleFiles) {
            var it = cycleFiles.entrySet().iterator();
            while (it.hasNext()) {
                Map.Entry<Integer, File> e = it.next();
                if (e.getKey() < firstCycle) {
                    try {
                        Files.deleteIfExists(e.getValue().toPath());
                    } catch (IOException ex) {
                        throw new JournalIoException("checkpoint: cannot delete old cycle " + e.getValue() + ": " + ex.getMessage(), ex);
                    }
                    it.remove();
                }
            }
        }
        queue.refreshDirectoryListing();
    }

    /**
     * The usual retention step: a checkpoint whose first needed index is the start of the current
     * cycle, so every older cycle can go once live pages are re-appended.
     *
     * @return the checkpoint's index
     */
    public synchronized long checkpointCurrentCycle() {
        return checkpoint(queue.rollCycle().toIndex(queue.cycle(), 0));
    }

    /**
     * The index the next record will get.
     *
     * @return the next index (the current cycle's first index after a roll)
     */
    public synchronized long nextIndex() {
        int cycle = queue.cycle();
        long last = queue.lastIndex();
        if (last < 0 || queue.rollCycle().toCycle(last) < cycle) {
            return queue.rollCycle().toIndex(cycle, 0);
        }
        return last + 1;
    }

    /**
     * The last record's index.
     *
     * @return the index of the queue's last record (any writer), or −1 when empty
     */
    public long lastIndex() {
        return queue.lastIndex();
    }

    /**
     * Chronicle appenders are single-threaded and check it; callers of this journal may come from
     * any thread (Reactor's boundedElastic), one at a time under this object's lock, which orders
     * their accesses, so each call takes the appender over explicitly.
     */
    private void claimAppender() {
        appender.singleThreadedCheckReset();
    }

    @Override
    public synchronized void close() {
        prefault.close();
        checksums.shutdown();
        claimAppender();
        appender.close();
        queue.close();
    }

    private void checkFreeSpace(String where, long needed) {
        Path dir = options.dir();
        long free = dir.toFile().getUsableSpace();
        if (free < needed) {
            throw new JournalFullException(where, needed, free);
        }
    }

    /**
     * A journal directory's cycle files ({@code *.cq4}), in cycle order.
     *
     * @param dir the journal directory
     * @return the files, oldest cycle first
     * @throws JournalIoException if the directory cannot be listed
     */
    public static List<Path> cycleFiles(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.toString().endsWith(".cq4")).sorted().toList();
        } catch (IOException e) {
            throw new JournalIoException("cannot list " + dir + ": " + e.getMessage(), e);
        }
    }

    private static void prepareDirectory(Path dir) {
        for (Path p = dir; p != null; p = p.getParent()) {
            if (Files.exists(p) && !Files.isDirectory(p)) {
                throw new JournalIoException("cannot open the journal at " + dir + ": " + p + " is not a directory");
            }
        }
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new JournalIoException("cannot create the journal directory " + dir + ": " + e, e);
        }
        if (!Files.isWritable(dir)) {
            throw new JournalIoException("cannot open the journal at " + dir + ": not writable");
        }
        try {
            Files.delete(Files.createTempFile(dir, ".kvflow-write-probe", ""));
        } catch (IOException e) {
            throw new JournalIoException("cannot open the journal at " + dir + ": not writable (" + e.getMessage() + ")", e);
        }
    }
}
