package org.kvflow.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.kvflow.core.DebugMode;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolLayout;
import jcuda.driver.CUdeviceptr;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.model.ModelRows;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.pages.KvComponent;
import org.kvflow.operators.group.RankStores;
import org.kvflow.operators.backup.JournalPrefixRestore;

/**
 * A 100K-token prefix of DeepSeek V3.2 fp8 KV (all 61 layers, page 64: {@code pages} pages of
 * 3,076,352 B, both pools) restored from the HiCache journal into CP8 owner pools in GPU memory
 * ({@link JournalPrefixRestore}), warm (journal in the page cache) and cold (caches dropped; needs
 * root), against two bounds from the same run: a sequential {@code FileChannel} read of the
 * journal's files (warm and cold), and pinned host → device copies of the same payload bytes.
 * Beside it, the time the cuda task-graph device takes to compute the same prefix's rows for
 * {@code recomputeLayers} layers of the synthetic layer ({@link ModelRows}, chunks of 8,192).
 * Checks sampled restored pages against their journaled bytes. One JSON object per line.
 * Arguments: DIR (scratch, emptied), pages (1563 = 100,032 tokens), runs (3), batch pages (16),
 * recompute layers (4), journal readers (4).
 */
public final class PrefixRestoreBench {
    private static final int PS = 64;
    private static final int CP = 8;
    private static final long SEED = 2026;

    private PrefixRestoreBench() {}

    public static void main(String[] args) throws Exception {
        DebugMode.refuseBenchmark("PrefixRestoreBench");
        Path root = Path.of(args[0]);
        int pages = args.length > 1 ? Integer.parseInt(args[1]) : 1563;
        int runs = args.length > 2 ? Integer.parseInt(args[2]) : 3;
        int batch = args.length > 3 ? Integer.parseInt(args[3]) : JournalPrefixRestore.DEFAULT_BATCH_PAGES;
        int recomputeLayers = args.length > 4 ? Integer.parseInt(args[4]) : 4;
        int readers = args.length > 5 ? Integer.parseInt(args[5]) : JournalPrefixRestore.DEFAULT_READERS;
        KvLayout kv = new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3);
        JournalLayout layout = new JournalLayout(PS, kv);
        Path dir = JournalBench.fresh(root.resolve("journal"));
        int[] tokens = tokens(pages);
        List<byte[]> hashes = PageHashChain.fullPageHashes(tokens, PS);
        long payloadBytes = write(dir, layout, tokens, hashes);
        long fileBytes = fileBytes(dir);
        System.out.printf(Locale.ROOT, "{\"name\":\"setup\",\"pages\":%d,\"tokens\":%d,\"layers\":%d,\"payload_bytes\":%d,\"journal_file_bytes\":%d,"
                + "\"batch_pages\":%d,\"readers\":%d}%n", pages, pages * PS, kv.shape().layers(), payloadBytes, fileBytes, batch, readers);
        int[] ids = new int[pages];
        Arrays.setAll(ids, i -> i);
        try (CudaPageMemory cuda = new CudaPageMemory(0);
             RankStores stores = RankStores.allocate(cuda, kv, new OwnershipMap(CP, PS), PoolLayout.SHARED, pages / CP + 1);
             JournalPrefixRestore restore = new JournalPrefixRestore(stores, batch, readers)) {
            for (int run = 0; run < runs; run++) {
                double h2d = pinnedToDevice(cuda, payloadBytes);
                double diskWarm = readFiles(dir);
                double warm = restore(restore, dir, hashes, ids, payloadBytes);
                report(run, "warm", warm, diskWarm, h2d);
                if (JournalBench.dropCaches()) {
                    double diskCold = readFiles(dir);
                    JournalBench.dropCaches();
                    double cold = restore(restore, dir, hashes, ids, payloadBytes);
                    report(run, "cold", cold, diskCold, h2d);
                } else {
                    System.out.println("{\"name\":\"restore_cold\",\"skipped\":\"cannot drop the page cache (not root?)\"}");
                }
            }
            check(stores, pages, tokens, hashes);
        }
        recompute(kv, tokens, recomputeLayers);
    }

    private static int[] tokens(int pages) {
        SplittableRandom random = new SplittableRandom(SEED);
        int[] tokens = new int[pages * PS];
        Arrays.setAll(tokens, i -> random.nextInt(32_000));
        return tokens;
    }

    /** Page {@code p}'s payload of {@code pool}: the same bytes each time it is asked for. */
    private static byte[] payload(JournalLayout layout, int p, HiCachePool pool) {
        byte[] payload = new byte[(int) layout.payloadBytes(pool)];
        new SplittableRandom(SEED * 31 + p * 2L + pool.code()).nextBytes(payload);
        return payload;
    }

    private static long write(Path dir, JournalLayout layout, int[] tokens, List<byte[]> hashes) {
        long bytes = 0;
        try (HiCacheJournal journal = HiCacheJournal.open(JournalOptions.of(dir, layout))) {
            for (int p = 0; p < hashes.size(); p++) {
                for (HiCachePool pool : HiCachePool.values()) {
                    PageBackup page = new PageBackup(hashes.get(p), p == 0 ? null : hashes.get(p - 1), Arrays.copyOfRange(tokens, p * PS, p * PS + PS),
                            p % CP, p, layout.layers(), pool, payload(layout, p, pool));
                    journal.backup(page, LongStream.range((long) p * PS, (long) p * PS + PS).toArray());
                    bytes += page.payloadLength();
                }
            }
        }
        return bytes;
    }

    /** Seconds of one restore; refuses a partial one. */
    private static double restore(JournalPrefixRestore restore, Path dir, List<byte[]> hashes, int[] ids, long payloadBytes) {
        long start = System.nanoTime();
        JournalPrefixRestore.Report report = restore.restore(dir, hashes, ids);
        double seconds = (System.nanoTime() - start) / 1e9;
        if (report.restoredPrefix() != ids.length || !report.refused().isEmpty() || report.payloadBytes() != payloadBytes) {
            throw new IllegalStateException("restored " + report.restoredPrefix() + " of " + ids.length + " pages, " + report.payloadBytes()
                    + " of " + payloadBytes + " B, refused " + report.refused());
        }
        return payloadBytes / 1e9 / seconds;
    }

    private static long fileBytes(Path dir) throws IOException {
        long bytes = 0;
        for (Path file : HiCacheJournal.cycleFiles(dir)) {
            bytes += Files.size(file);
        }
        return bytes;
    }

    /** GB/s of a sequential read of the journal's files into one direct buffer. */
    private static double readFiles(Path dir) throws IOException {
        ByteBuffer buffer = ByteBuffer.allocateDirect(16 << 20);
        long bytes = 0;
        long start = System.nanoTime();
        for (Path file : HiCacheJournal.cycleFiles(dir)) {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
                int n;
                while ((n = ch.read(buffer.clear())) >= 0) {
                    bytes += n;
                }
            }
        }
        return bytes / 1e9 / ((System.nanoTime() - start) / 1e9);
    }

    /** GB/s of pinned host → device copies of {@code bytes} bytes, 256 MiB at a time. */
    private static double pinnedToDevice(CudaPageMemory cuda, long bytes) {
        long chunk = 256L << 20;
        try (CudaBaseline baseline = new CudaBaseline(cuda.device())) {
            CUdeviceptr host = baseline.pinnedBytes(chunk);
            CUdeviceptr device = baseline.deviceBytes(chunk);
            baseline.copy(device, host, chunk); // warm-up
            long copies = (bytes + chunk - 1) / chunk;
            long start = System.nanoTime();
            for (long c = 0; c < copies; c++) {
                baseline.copy(device, host, chunk);
            }
            return copies * chunk / 1e9 / ((System.nanoTime() - start) / 1e9);
        }
    }

    private static void report(int run, String cache, double restore, double disk, double h2d) {
        double slower = Math.min(disk, h2d);
        System.out.printf(Locale.ROOT, "{\"name\":\"restore_%s\",\"run\":%d,\"restore_gbps\":%.2f,\"disk_read_gbps\":%.2f,\"pinned_h2d_gbps\":%.2f,"
                + "\"ratio\":%.3f}%n", cache, run, restore, disk, h2d, restore / slower);
    }

    /** Every 97th page and the last, both pools, read back from its owner against the journaled bytes. */
    private static void check(RankStores stores, int pages, int[] tokens, List<byte[]> hashes) {
        JournalLayout layout = new JournalLayout(PS, stores.rank(0).layout());
        int checked = 0;
        for (int p = 0; p < pages; p = p == pages - 1 ? pages : Math.min(p + 97, pages - 1)) {
            for (HiCachePool pool : HiCachePool.values()) {
                byte[] stored = stores.rank(stores.holder(p)).readPage(KvComponent.of(pool), stores.physicalPage(p));
                if (!Arrays.equals(stored, payload(layout, p, pool))) {
                    throw new IllegalStateException("page " + p + " " + pool.wireName() + " differs from its journaled bytes");
                }
            }
            checked++;
        }
        System.out.printf(Locale.ROOT, "{\"name\":\"check\",\"pages_checked\":%d,\"ok\":true}%n", checked);
    }

    /** Seconds the cuda task-graph device takes to compute the prefix's rows, per layer, over {@code layers} layers. */
    private static void recompute(KvLayout kv, int[] tokens, int layers) {
        int chunk = 8_192;
        double seconds = 0;
        try (ModelRows rows = new ModelRows(new SyntheticModel(NsaDims.REAL, kv.dtype(), layers, SEED), Devices.select("cuda"))) {
            for (int l = 0; l < layers; l++) {
                rows.of(l, Arrays.copyOf(tokens, 64), LongStream.range(0, 64).toArray()); // builds the plan and loads the kernels
                long start = System.nanoTime();
                for (int from = 0; from < tokens.length; from += chunk) {
                    int to = Math.min(tokens.length, from + chunk);
                    rows.of(l, Arrays.copyOfRange(tokens, from, to), LongStream.range(from, to).toArray());
                }
                seconds += (System.nanoTime() - start) / 1e9;
            }
        }
        double perLayer = seconds / layers;
        System.out.printf(Locale.ROOT, "{\"name\":\"recompute_rows\",\"layers_measured\":%d,\"tokens\":%d,\"seconds_per_layer\":%.3f,"
                + "\"seconds_61_layers_scaled\":%.2f}%n", layers, tokens.length, perLayer, perLayer * kv.shape().layers());
    }
}
