package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.journal.record.PageBackup;

class JournalCommandsTest {
    private static final JournalLayout LAYOUT = new JournalLayout(2,
            new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 1, 24, 8, 16), KvDtype.BF16));

    @TempDir
    Path dir;

    /** Writes both pools of {@code pages} chained pages; returns the indices. */
    private List<Long> writeJournal(int pages) {
        int[] tokens = new int[pages * 2];
        Arrays.setAll(tokens, i -> i + 1);
        List<byte[]> hashes = PageHashChain.fullPageHashes(tokens, 2);
        List<Long> indices = new ArrayList<>();
        try (HiCacheJournal journal = HiCacheJournal.open(JournalOptions.of(dir, LAYOUT))) {
            for (int p = 0; p < pages; p++) {
                for (HiCachePool pool : HiCachePool.values()) {
                    byte[] payload = new byte[(int) LAYOUT.payloadBytes(pool)];
                    new SplittableRandom(p * 2L + pool.code()).nextBytes(payload);
                    PageBackup page = new PageBackup(hashes.get(p), p == 0 ? null : hashes.get(p - 1),
                            Arrays.copyOfRange(tokens, 2 * p, 2 * p + 2), p % 2, p, 1, pool, payload);
                    indices.add(journal.backup(page, new long[] {2L * p, 2L * p + 1}));
                }
            }
        }
        return indices;
    }

    @Test
    void replayReportsWhatWasRestored() throws Exception {
        writeJournal(3);
        Cli.Result text = Cli.run("replay", "--journal", dir.toString());
        assertThat(text.exit()).isZero();
        assertThat(text.out()).startsWith("replayed 6 records (6 applied, 0 checkpoints): 6 host entries").contains("refused 0 record(s)");
        Cli.Result json = Cli.run("replay", "--journal", dir.toString(), "--json", "--verify");
        assertThat(json.exit()).isZero();
        JsonNode o = new ObjectMapper().readTree(json.out());
        assertThat(o.get("applied").asLong()).isEqualTo(6);
        assertThat(o.get("payloadBytes").asLong()).isEqualTo(3 * (LAYOUT.payloadBytes(HiCachePool.KV) + LAYOUT.payloadBytes(HiCachePool.INDEXER)));
        assertThat(o.get("refused")).as("the same word as the text output").isEmpty();
    }

    @Test
    void replayFromAnIndexAndVerifyFindsCorruptRecords() throws Exception {
        List<Long> indices = writeJournal(3);
        Cli.Result from = Cli.run("replay", "--journal", dir.toString(), "--from", "0x" + Long.toHexString(indices.get(4)));
        assertThat(from.out()).startsWith("replayed 2 records");
        Cli.Result small = Cli.run("replay", "--journal", dir.toString(), "--host-bytes", String.valueOf(LAYOUT.payloadBytes(HiCachePool.KV)));
        assertThat(small.out()).as("a host cache too small for the journal reports its evictions")
                .containsPattern("evicted [1-9][0-9]* host entries for space \\(--host-bytes [0-9]+ holds [0-9]+\\)");
        Cli.Result fromRecord = Cli.run("replay", "--journal", dir.toString(), "--from", "4");
        assertThat(fromRecord.out()).as("record number 4 is the record at indices[4]").startsWith("replayed 2 records");
        corruptSomePayload();
        Cli.Result verify = Cli.run("replay", "--journal", dir.toString(), "--verify");
        assertThat(verify.exit()).isEqualTo(3);
        assertThat(verify.out()).contains("refused 1 record(s)").contains(": crc32c mismatch");
        Cli.Result info = Cli.run("journal-info", "--journal", dir.toString());
        assertThat(info.exit()).as("journal-info checks CRCs too").isEqualTo(3);
        assertThat(info.out()).contains("records 6 (1 refused by their CRC32C or format checks)");
    }

    /** A power loss cut the cycle file: replay and journal-info read every record before the cut, report it, and exit 3. */
    @Test
    void aTruncatedCycleIsReportedAndEverythingBeforeItReplayed() throws Exception {
        List<Long> indices = writeJournal(3);
        Path cycle;
        try (var files = Files.list(dir)) {
            cycle = files.filter(p -> p.toString().endsWith(".cq4")).findFirst().orElseThrow();
        }
        byte[] content = Files.readAllBytes(cycle);
        int end = content.length;
        while (content[end - 1] == 0) {
            end--;
        }
        try (var f = new java.io.RandomAccessFile(cycle.toFile(), "rw")) {
            f.setLength(end - 3); // inside the last record
        }
        Cli.Result replay = Cli.run("replay", "--journal", dir.toString());
        assertThat(replay.exit()).isEqualTo(3);
        assertThat(replay.err()).isEmpty();
        assertThat(replay.out()).startsWith("replayed 5 records").contains("damaged " + cycle.getFileName() + " from record 0x"
                + Long.toHexString(indices.getLast()) + ": the document at byte ").contains("every record before it was replayed");
        Cli.Result info = Cli.run("journal-info", "--journal", dir.toString(), "--json");
        assertThat(info.exit()).isEqualTo(3);
        JsonNode o = new ObjectMapper().readTree(info.out());
        assertThat(o.get("records").asLong()).isEqualTo(5);
        assertThat(o.get("damage").get(0).get("firstBadIndex").asText()).isEqualTo("0x" + Long.toHexString(indices.getLast()));
    }

    @Test
    void journalInfoSummarises() {
        List<Long> indices = writeJournal(2);
        Cli.Result info = Cli.run("journal-info", "--journal", dir.toString());
        assertThat(info.exit()).isZero();
        assertThat(info.out()).contains("ps 2, toy-mla 1 layers 24+8/16 bf16").contains("cycles 1, records 4")
                .contains("first index 0x" + Long.toHexString(indices.getFirst()))
                .contains("last index 0x" + Long.toHexString(indices.getLast()));
    }

    @Test
    void badInputNamesTheProblem() throws Exception {
        Cli.Result notJournal = Cli.run("replay", "--journal", dir.toString());
        assertThat(notJournal.exit()).isEqualTo(2);
        assertThat(notJournal.out()).isEmpty();
        assertThat(notJournal.err()).isEqualTo("kvflow: " + dir + " is not a kvflow journal: kvflow-journal.json is missing" + System.lineSeparator());
        writeJournal(1);
        Cli.Result badFrom = Cli.run("replay", "--journal", dir.toString(), "--from", "12z");
        assertThat(badFrom.exit()).isEqualTo(2);
        assertThat(badFrom.err()).isEqualTo("kvflow: --from: must be a record number (decimal) or an index (hex with 0x), was \"12z\""
                + System.lineSeparator());
        Cli.Result noRecord = Cli.run("replay", "--journal", dir.toString(), "--from", "7");
        assertThat(noRecord.exit()).isEqualTo(2);
        assertThat(noRecord.err()).isEqualTo("kvflow: no record number 7 in " + dir + ": it holds 2 records" + System.lineSeparator());
        Cli.Result noIndex = Cli.run("replay", "--journal", dir.toString(), "--from", "0x7");
        assertThat(noIndex.err()).startsWith("kvflow: no record at index 7 in ");
        Cli.Result negative = Cli.run("replay", "--journal", dir.toString(), "--from", "-1");
        assertThat(negative.err()).isEqualTo("kvflow: --from: a record number is >= 0, was -1" + System.lineSeparator());
    }

    private void corruptSomePayload() throws Exception {
        byte[] payload = new byte[(int) LAYOUT.payloadBytes(HiCachePool.KV)];
        new SplittableRandom(2).nextBytes(payload); // page 1, kv
        org.kvflow.journal.TestPages.flipByteOf(dir, payload);
    }
}
