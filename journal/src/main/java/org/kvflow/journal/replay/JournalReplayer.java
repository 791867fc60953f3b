package org.kvflow.journal.replay;

import org.kvflow.journal.HiCacheJournal;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.kvflow.journal.JournalIoException;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.record.JournalRecord;
import org.kvflow.journal.record.PageBackup;

/**
 * Replays a journal into a {@link HostPageCache} (contract §11.4). Each record is checked (CRC32C,
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
        /**
         * Called after each record.
         *
         * @param records      records read so far
         * @param payloadBytes payload bytes restored so far
         */
        void onRecord(long records, long payloadBytes);
    }

    /**
     * Replays a journal into a host page cache, verifying every record.
     *
     * @param dir       the journal directory
     * @param start     where to begin
     * @param onCorrupt skip a refused record (reporting it) or stop at it
     * @param cache     the host cache the backups go into, evictions come out of
     * @param progress  told after each record
     * @return what was read, applied and refused
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
        List<JournalDamage> damage;
        try (JournalReader reader = JournalReader.open(dir, start)) {
            JournalReader.Item item;
            while ((item = reader.next()) != null) {
                records++;
                JournalRecord record = item.record();
                String problem = item.refusal();
                if (record instanceof JournalRecord.Checkpoint) {
                    checkpoints++;
                } else if (record instanceof JournalRecord.Backup b) {
                    problem = restore(b.page(), layout, cache);
                } else if (record instanceof JournalRecord.EvictHost e) {
                    cache.evict(e.pageHash());
                }
                if (problem != null) {
                    refuse(rejected, onCorrupt, item.index(), problem);
                    continue;
                }
                applied++;
                if (record instanceof JournalRecord.Backup b) {
                    bytes += b.page().payloadLength();
                }
                progress.onRecord(records, bytes);
            }
            damage = reader.damage();
        }
        if (onCorrupt == OnCorrupt.FAIL && !damage.isEmpty()) {
            throw new JournalCorruptionException(damage.getFirst().firstBadIndex(), damage.getFirst().reason());
        }
        return new ReplayReport(records, bytes, applied, checkpoints, rejected, damage);
    }

    private static String restore(PageBackup page, JournalLayout layout, HostPageCache cache) {
        long expected = layout.payloadBytes(page.pool());
        if (page.tokenIds().length != layout.pageSize() || page.layerCount() != layout.layers()) {
            return "page of " + page.tokenIds().length + " tokens x " + page.layerCount() + " layers does not match the journal ("
                    + layout.pageSize() + " x " + layout.layers() + ")";
        }
        if (page.payloadLength() != expected) {
            return "payload length " + page.payloadLength() + " != expected " + expected + " for pool " + page.pool().wireName();
        }
        return switch (cache.put(page)) {
            case INSERTED, SAME_BYTES -> null;
            case DIFFERENT_BYTES -> "page " + page.key() + " backed up again with different bytes";
        };
    }

    private static void refuse(List<ReplayReport.Rejected> rejected, OnCorrupt onCorrupt, long index, String reason) {
        if (onCorrupt == OnCorrupt.FAIL) {
            throw new JournalCorruptionException(index, reason);
        }
        rejected.add(new ReplayReport.Rejected(index, reason));
    }

    /**
     * A journal's summary, read without applying anything.
     *
     * @param dir the journal directory
     * @return cycles, records (and how many fail their checks: CRC32C, format, a checkpoint's
     *         target), bytes on disk, first and last index, and damage
     */
    public static JournalInfo info(Path dir) {
        JournalLayout layout = JournalLayout.read(dir);
        try (JournalReader reader = JournalReader.open(dir, ReplayStart.fromStart())) {
            List<Path> cycles = HiCacheJournal.cycleFiles(dir);
            long bytes = 0;
            for (Path p : cycles) {
                bytes += Files.size(p);
            }
            long records = 0;
            long refused = 0;
            long first = -1;
            long last = -1;
            JournalReader.Item item;
            while ((item = reader.next()) != null) {
                records++;
                first = records == 1 ? item.index() : first;
                last = item.index();
                if (item.refusal() != null) {
                    refused++;
                }
            }
            // the indexes of records read, not Chronicle's own last index: a damaged cycle's header can name records past the damage
            return new JournalInfo(layout, cycles.size(), records, refused, bytes, first, last, reader.damage());
        } catch (IOException e) {
            throw new JournalIoException("cannot read " + dir + ": " + e.getMessage(), e);
        }
    }

    /**
     * Summary of a journal directory.
     *
     * @param layout      the layout it records
     * @param cycles      cycle files
     * @param records     records read
     * @param refused     records that fail their checks
     * @param bytesOnDisk bytes of its files
     * @param firstIndex  the first record's index, -1 when it holds none
     * @param lastIndex   the last record's index, -1 when it holds none
     * @param damage      damaged stretches of cycle files
     */
    public record JournalInfo(JournalLayout layout, int cycles, long records, long refused, long bytesOnDisk, long firstIndex, long lastIndex,
                              List<JournalDamage> damage) {
        /** Copies the damage list. */
        public JournalInfo {
            damage = List.copyOf(damage);
        }
    }
}
