package org.kvflow.journal;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.journal.record.PageBackup;

/** Deterministic pages for journal tests: toy NSA layout, page size 4, 2 layers. */
public final class TestPages {
    public static final int PS = 4;
    public static final JournalLayout LAYOUT = new JournalLayout(PS,
            new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 2, 40, 8, 24), KvDtype.FP8_E4M3));

    private TestPages() {}

    public static JournalOptions options(Path dir) {
        return new JournalOptions(dir, LAYOUT, RollPeriod.DAILY, System::currentTimeMillis, true);
    }

    /** Both pools of every full page of a prompt, payloads derived from {@code seed}. */
    public static List<PageBackup> prompt(long seed, int pages) {
        SplittableRandom random = new SplittableRandom(seed);
        int[] tokens = new int[pages * PS];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = random.nextInt(1000);
        }
        List<byte[]> hashes = PageHashChain.fullPageHashes(tokens, PS);
        List<PageBackup> out = new ArrayList<>();
        for (int p = 0; p < pages; p++) {
            int[] pageTokens = java.util.Arrays.copyOfRange(tokens, p * PS, (p + 1) * PS);
            for (HiCachePool pool : HiCachePool.values()) {
                byte[] payload = new byte[(int) LAYOUT.payloadBytes(pool)];
                new SplittableRandom(seed * 31 + p * 2L + pool.code()).nextBytes(payload);
                out.add(new PageBackup(hashes.get(p), p == 0 ? null : hashes.get(p - 1), pageTokens, p % 4, p, 2, pool, payload));
            }
        }
        return out;
    }

    /** Journals {@code pages} in order, page {@code p} at the locs of logical page {@code p.position() + locShift}; returns their indexes. */
    public static List<Long> write(Path dir, List<PageBackup> pages, int locShift) {
        List<Long> indices = new ArrayList<>();
        try (HiCacheJournal journal = HiCacheJournal.open(options(dir))) {
            for (PageBackup page : pages) {
                indices.add(journal.backup(page, locs(page.position() + locShift)));
            }
        }
        return indices;
    }

    /** The token locs of logical page {@code page}: one valid group. */
    public static long[] locs(long page) {
        long[] locs = new long[PS];
        for (int k = 0; k < PS; k++) {
            locs[k] = page * PS + k;
        }
        return locs;
    }

    /** Finds the payload's first 16 bytes in the cycle file and flips one byte in the middle of it. */
    public static void flipByteOf(Path dir, byte[] payload) throws IOException {
        byte[] needle = java.util.Arrays.copyOf(payload, 16);
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.filter(p -> p.toString().endsWith(".cq4")).toList()) {
                byte[] content = Files.readAllBytes(file);
                for (int i = 0; i + needle.length <= content.length; i++) {
                    if (java.util.Arrays.equals(content, i, i + needle.length, needle, 0, needle.length)) {
                        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
                            raf.seek(i + 100);
                            int b = raf.read();
                            raf.seek(i + 100);
                            raf.write(b ^ 0x40);
                        }
                        return;
                    }
                }
            }
        }
        throw new AssertionError("payload not found on disk");
    }
}
