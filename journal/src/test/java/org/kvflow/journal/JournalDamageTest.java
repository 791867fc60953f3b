package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalCorruptionException;
import org.kvflow.journal.replay.JournalDamage;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;

/**
 * Power loss, a full disk or a stray write damage a cycle file: replay recovers every complete
 * record before the damage (and every record of later cycles), reports the first bad index and the
 * bytes lost, and never dies of a SIGBUS in a mapped read (which it did, recovering nothing).
 */
class JournalDamageTest {
    @TempDir
    Path dir;

    /** Writes {@code pages} pages in one cycle per entry of {@code perCycle}, a second apart; returns every record's index. */
    private List<Long> write(int... perCycle) {
        long[] clock = {1_700_000_000_000L};
        List<Long> indexes = new ArrayList<>();
        try (HiCacheJournal j = HiCacheJournal.open(new JournalOptions(dir, TestPages.LAYOUT, RollPeriod.SECONDLY, () -> clock[0], false))) {
            int seed = 0;
            for (int pages : perCycle) {
                for (PageBackup p : TestPages.prompt(++seed, pages / 2)) {
                    indexes.add(j.backup(p, new long[] {0, 1, 2, 3}));
                }
                clock[0] += 1500;
            }
        }
        return indexes;
    }

    private List<Path> cycles() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.filter(p -> p.toString().endsWith(".cq4")).sorted().toList();
        }
    }

    /** Start and end offsets of each data document (a record) of a cycle file, in order. */
    private static List<long[]> records(Path cycle) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(cycle)).order(ByteOrder.LITTLE_ENDIAN);
        List<long[]> out = new ArrayList<>();
        int pos = 0;
        while (pos + 4 <= b.limit() && b.getInt(pos) != 0 && (b.getInt(pos) & 0x80000000) == 0) {
            int h = b.getInt(pos);
            int end = pos + 4 + (h & 0x3FFFFFFF);
            if ((h & 0x40000000) == 0) {
                out.add(new long[] {pos, end});
            }
            pos = (end + 3) & ~3;
        }
        return out;
    }

    private ReplayReport replay() {
        return JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP, new HostPageCache(1L << 30), (r, b) -> { });
    }

    /** The cut is a page boundary inside a record, so a mapped read of the record's rest faulted (SIGBUS) and replay died. */
    @Test
    void aCycleCutInsideARecordYieldsEveryRecordBeforeIt() throws IOException {
        List<Long> indexes = write(300);
        Path cycle = cycles().getFirst();
        List<long[]> records = records(cycle);
        int k = records.size() - 1;
        while ((records.get(k)[0] + 4) / 4096 == (records.get(k)[1] - 1) / 4096) {
            k--; // the last record that runs across a page boundary
        }
        long start = records.get(k)[0];
        long cut = (records.get(k)[1] - 1) / 4096 * 4096;
        try (RandomAccessFile f = new RandomAccessFile(cycle.toFile(), "rw")) {
            f.setLength(cut);
        }
        ReplayReport report = replay();
        assertThat(report.records()).isEqualTo(k);
        assertThat(report.rejected()).isEmpty();
        assertThat(report.damage()).containsExactly(new JournalDamage(cycle.getFileName().toString(), indexes.get(k), cut - start,
                "the document at byte " + start + " declares " + (records.get(k)[1] - start - 4) + " bytes, but the file ends at byte " + cut));
        JournalReplayer.JournalInfo info = JournalReplayer.info(dir);
        assertThat(info.records()).isEqualTo(k);
        assertThat(info.lastIndex()).isEqualTo(indexes.get(k - 1));
        assertThat(info.damage()).isEqualTo(report.damage());
        assertThatThrownBy(() -> JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL, new HostPageCache(1L << 30),
                (r, b) -> { })).isInstanceOf(JournalCorruptionException.class)
                .hasMessageStartingWith("journal record " + Long.toHexString(indexes.get(k)) + ": the document at byte ");
    }

    @Test
    void aHugeLengthInOneHeaderCostsTheRecordsAfterItInThatCycleOnly() throws IOException {
        List<Long> indexes = write(200, 100);
        Path first = cycles().getFirst();
        long at = records(first).get(120)[0];
        long size = Files.size(first);
        try (RandomAccessFile f = new RandomAccessFile(first.toFile(), "rw")) {
            f.seek(at);
            f.writeInt(Integer.reverseBytes(0x3FFFFFF0)); // little-endian length, no flags
        }
        ReplayReport report = replay();
        assertThat(report.records()).as("120 before the damage, then the second cycle's 100").isEqualTo(220);
        JournalDamage damage = report.damage().getFirst();
        assertThat(damage.firstBadIndex()).isEqualTo(indexes.get(120));
        assertThat(damage.bytesLost()).isEqualTo(size - at);
        assertThat(damage.reason()).isEqualTo("the document at byte " + at + " declares 1073741808 bytes, but the file ends at byte " + size);
    }

    /** A zeroed or flipped header reads as the end of the cycle: the records after it must be reported lost, not silently absent. */
    @Test
    void aHeaderThatReadsAsTheEndWithRecordsAfterItIsDamage() throws IOException {
        for (int flipped : new int[] {0, Integer.reverseBytes(0x80000010)}) { // zeroed; an unfinished-write flag with a small length
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            List<Long> indexes = write(200);
            Path cycle = cycles().getFirst();
            long at = records(cycle).get(120)[0];
            try (RandomAccessFile f = new RandomAccessFile(cycle.toFile(), "rw")) {
                f.seek(at);
                f.writeInt(flipped);
            }
            ReplayReport report = replay();
            assertThat(report.records()).as("the 120 records before it").isEqualTo(120);
            JournalDamage damage = report.damage().getFirst();
            assertThat(damage.firstBadIndex()).isEqualTo(indexes.get(120));
            assertThat(damage.reason()).startsWith("the document header at byte " + at + " reads as the end (")
                    .contains("), but bytes follow at byte ");
        }
    }

    @Test
    void anEmptyCycleFileIsDamageNotAnEmptyJournal() throws IOException {
        List<Long> indexes = write(50, 40);
        Path first = cycles().getFirst();
        try (RandomAccessFile f = new RandomAccessFile(first.toFile(), "rw")) {
            f.setLength(0);
        }
        ReplayReport report = replay();
        assertThat(report.records()).isEqualTo(40);
        assertThat(report.damage()).containsExactly(new JournalDamage(first.getFileName().toString(), indexes.getFirst(), 0,
                "the cycle file is empty: a cycle that should hold records holds none"));
    }

    @Test
    void aGarbageMetadataFileIsReportedAsDamageNotAsALock() throws IOException {
        write(10);
        Files.write(dir.resolve("metadata.cq4t"), new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        assertThatThrownBy(this::replay).isInstanceOf(JournalIoException.class)
                .hasMessage(dir.resolve("metadata.cq4t") + " is damaged: it does not start with a Chronicle table-store header (8 bytes,"
                        + " first word 0x4030201); replay cannot read the cycles without it");
    }

    @Test
    void anIntactJournalIsReadInPlaceWithNoDamage() throws IOException {
        write(30);
        List<Path> viewsBefore = replayViews();
        ReplayReport report = replay();
        assertThat(report.records()).isEqualTo(30);
        assertThat(report.damage()).isEmpty();
        assertThat(replayViews()).as("no temp view was made (other runs' leftovers aside)").isEqualTo(viewsBefore);
    }

    private static List<Path> replayViews() throws IOException {
        try (Stream<Path> tmp = Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return tmp.filter(p -> p.getFileName().toString().startsWith("kvflow-replay-")).sorted().toList();
        }
    }
}
