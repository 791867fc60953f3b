package org.kvflow.journal.replay;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.stream.Stream;
import net.openhft.chronicle.queue.ExcerptTailer;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueue;
import net.openhft.chronicle.queue.impl.single.SingleChronicleQueueBuilder;
import net.openhft.chronicle.wire.DocumentContext;
import org.kvflow.journal.JournalIoException;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.record.JournalRecord;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.record.RecordCodec;
import org.kvflow.journal.record.RecordDecodeException;

/**
 * Replays a journal into a {@link HostPageCache} (SPEC §11.4). Each record is checked (CRC32C,
 * format version, payload length for its pool, a checkpoint's named record still being the same);
 * a refused record is reported with its index and then skipped or fatal, as asked; every good
 * record is applied either way. Replay is idempotent and works from any start point. Blocking.
 */
public final class JournalReplayer {
    private JournalReplayer() {}

    /** What to do with a refused record. */
    public enum OnCorrupt {
        /** Report it and go on. */
        SKIP,
        /** Throw {@link JournalCorruptionException} at the first one. */
        FAIL
    }

    /** Progress callback: records read and payload bytes restored so far. */
    @FunctionalInterface
    public interface Progress {
        void onRecord(long records, long payloadBytes);
    }

    /**
     * @throws JournalIoException         if {@code dir} is not a journal
     * @throws JournalCorruptionException with {@link OnCorrupt#FAIL}, at the first refused record
     * @throws IllegalArgumentException   if {@code start} names an index that holds no record
     */
    public static ReplayReport replay(Path dir, ReplayStart start, OnCorrupt onCorrupt, HostPageCache cache, Progress progress) {
        JournalLayout layout = JournalLayout.read(dir);
        List<ReplayReport.Rejected> rejected = new ArrayList<>();
        long records = 0;
        long bytes = 0;
        long applied = 0;
        int checkpoints = 0;
        RecordCodec codec = new RecordCodec();
        try (SingleChronicleQueue queue = open(dir);
             ExcerptTailer tailer = queue.createTailer();
             ExcerptTailer lookup = queue.createTailer()) {
            boolean waitingForTime = start instanceof ReplayStart.FromTime;
            long notBefore = start instanceof ReplayStart.FromTime t ? t.epochMillis() : Long.MIN_VALUE;
            if (start instanceof ReplayStart.FromIndex from && !tailer.moveToIndex(from.index())) {
                throw new IllegalArgumentException("no record at index " + Long.toHexString(from.index()) + " in " + dir);
            }
            while (true) {
                try (DocumentContext dc = tailer.readingDocument()) {
                    if (!dc.isPresent()) {
                        break;
                    }
                    long index = dc.index();
                    JournalRecord record;
                    try {
                        record = codec.read(dc.wire().bytes(), index).record();
                    } catch (RecordDecodeException e) {
                        records++;
                        refuse(rejected, onCorrupt, index, e.getMessage());
                        continue;
                    }
                    if (waitingForTime) {
                        if (record.timestampMillis() < notBefore) {
                            continue;
                        }
                        waitingForTime = false;
                    }
                    records++;
                    String problem = switch (record) {
                        case JournalRecord.Backup b -> restore(b.page(), layout, cache);
                        case JournalRecord.EvictHost e -> {
                            cache.evict(e.pageHash());
                            yield null;
                        }
                        case JournalRecord.Checkpoint c -> checkCheckpoint(c, lookup, codec);
                    };
                    if (record instanceof JournalRecord.Checkpoint) {
                        checkpoints++;
                    }
                    if (problem != null) {
                        refuse(rejected, onCorrupt, index, problem);
                    } else {
                        applied++;
                        if (record instanceof JournalRecord.Backup b) {
                            bytes += b.page().payload().length;
                        }
                    }
                    progress.onRecord(records, bytes);
                }
            }
        } catch (RuntimeException e) {
            if (e instanceof JournalCorruptionException || e instanceof IllegalArgumentException || e instanceof JournalIoException) {
                throw e;
            }
            throw new JournalIoException("replay of " + dir + " failed: " + e.getMessage(), e);
        }
        return new ReplayReport(records, bytes, applied, checkpoints, rejected);
    }

    private static String restore(PageBackup page, JournalLayout layout, HostPageCache cache) {
        long expected = layout.payloadBytes(page.pool());
        if (page.tokenIds().length != layout.pageSize() || page.layerCount() != layout.layers()) {
            return "page of " + page.tokenIds().length + " tokens x " + page.layerCount() + " layers does not match the journal ("
                    + layout.pageSize() + " x " + layout.layers() + ")";
        }
        if (page.payload().length != expected) {
            return "payload length " + page.payload().length + " != expected " + expected + " for pool " + page.pool().wireName();
        }
        return switch (cache.put(page)) {
            case INSERTED, SAME_BYTES -> null;
            case DIFFERENT_BYTES -> "page " + page.key() + " backed up again with different bytes";
        };
    }

    private static String checkCheckpoint(JournalRecord.Checkpoint checkpoint, ExcerptTailer lookup, RecordCodec codec) {
        long named = checkpoint.firstNeededIndex();
        if (checkpoint.expectedCrc() == 0) {
            return null;
        }
        if (!lookup.moveToIndex(named)) {
            return "checkpoint names index " + Long.toHexString(named) + ", which holds no record";
        }
        try (DocumentContext dc = lookup.readingDocument()) {
            if (!dc.isPresent()) {
                return "checkpoint names index " + Long.toHexString(named) + ", which holds no record";
            }
            int crc = codec.read(dc.wire().bytes(), named).crc();
            return crc == checkpoint.expectedCrc() ? null
                    : "checkpoint names index " + Long.toHexString(named) + ", which now holds a different record";
        } catch (RecordDecodeException e) {
            return "checkpoint names index " + Long.toHexString(named) + ", which is corrupt: " + e.getMessage();
        }
    }

    private static void refuse(List<ReplayReport.Rejected> rejected, OnCorrupt onCorrupt, long index, String reason) {
        if (onCorrupt == OnCorrupt.FAIL) {
            throw new JournalCorruptionException(index, reason);
        }
        rejected.add(new ReplayReport.Rejected(index, reason));
    }

    /** Cycles, records, bytes on disk, first and last index of a journal. */
    public static JournalInfo info(Path dir) {
        JournalLayout layout = JournalLayout.read(dir);
        try (SingleChronicleQueue queue = open(dir); Stream<Path> files = Files.list(dir)) {
            List<Path> cycles = files.filter(p -> p.toString().endsWith(".cq4")).sorted().toList();
            long bytes = 0;
            for (Path p : cycles) {
                bytes += Files.size(p);
            }
            long records = 0;
            try (ExcerptTailer tailer = queue.createTailer()) {
                while (true) {
                    try (DocumentContext dc = tailer.readingDocument()) {
                        if (!dc.isPresent()) {
                            break;
                        }
                        records++;
                    }
                }
            }
            return new JournalInfo(layout, cycles.size(), records, bytes, queue.firstIndex(), queue.lastIndex());
        } catch (IOException e) {
            throw new JournalIoException("cannot read " + dir + ": " + e.getMessage(), e);
        }
    }

    private static SingleChronicleQueue open(Path dir) {
        Objects.requireNonNull(dir, "dir");
        try {
            return SingleChronicleQueueBuilder.single(dir.toFile()).readOnly(true).build();
        } catch (RuntimeException e) {
            throw new JournalIoException("cannot open the journal at " + dir + ": " + e.getMessage(), e);
        }
    }

    /** Summary of a journal directory. */
    public record JournalInfo(JournalLayout layout, int cycles, long records, long bytesOnDisk, long firstIndex, long lastIndex) {}
}
