package org.kvflow.bench;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.HdrHistogram.Histogram;
import org.kvflow.core.DebugMode;
import org.kvflow.core.FileTrees;
import org.kvflow.core.hicache.HiCachePool;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;

/**
 * HiCache journal throughput against plain sequential {@code FileChannel} I/O of the same bytes in
 * the same run: page records at page size 64 with the fp8 MLA + indexer layout of all 61 layers of
 * DeepSeek V3.2 (2,561,024 B kv and 515,328 B indexer payloads, contract §11.4 granularity), appended,
 * then replayed warm (page cache) and cold (caches dropped, needs root; the cold replay is timed
 * between two cold baseline reads and set against their mean time). Reports MB/s, records/s,
 * ratios and the append latency percentiles (HdrHistogram). One untimed round on 128 records first
 * compiles every timed path. Usage: {@code JournalBench DIR [pages]}.
 */
public final class JournalBench {
    private JournalBench() {}

    public static void main(String[] args) throws Exception {
        DebugMode.refuseBenchmark("JournalBench");
        Path root = Path.of(args[0]);
        int pages = args.length > 1 ? Integer.parseInt(args[1]) : 640;
        JournalLayout layout = new JournalLayout(64, new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3));
        List<PageBackup> records = records(layout, pages);
        long bytes = records.stream().mapToLong(PageBackup::payloadLength).sum();
        System.out.printf(Locale.ROOT, "{\"records\":%d,\"payloadBytes\":%d,\"kvRecordBytes\":%d,\"indexerRecordBytes\":%d}%n",
                records.size(), bytes, layout.payloadBytes(HiCachePool.KV), layout.payloadBytes(HiCachePool.INDEXER));
        warmUp(root, layout, records.subList(0, Math.min(records.size(), 128)));
        for (int run = 0; run < 3; run++) {
            Path queue = fresh(root.resolve("journal"));
            Path plain = fresh(root.resolve("plain")).resolve("records.bin");
            sync(); // every timed phase starts with no dirty pages from the one before
            long fcWrite = timeFileChannelWrite(plain, records);
            sync();
            Histogram latency = new Histogram(3_600_000_000L, 3);
            long faultsBefore = minorFaultsOfThisThread();
            long append = timeAppend(queue, layout, records, latency);
            long faults = minorFaultsOfThisThread() - faultsBefore;
            sync();
            report("append", run, bytes, records.size(), append, fcWrite);
            System.out.printf(Locale.ROOT, "{\"name\":\"append_latency_us\",\"run\":%d,\"p50\":%.1f,\"p99\":%.1f,\"max\":%.1f,\"appenderFaultsPerRecord\":%.1f}%n", run,
                    latency.getValueAtPercentile(50) / 1e3, latency.getValueAtPercentile(99) / 1e3, latency.getMaxValue() / 1e3,
                    faults < 0 ? -1.0 : (double) faults / records.size());
            long fcRead = timeFileChannelRead(plain, records);
            long replay = timeReplay(queue, records.size());
            report("replay_warm", run, bytes, records.size(), replay, fcRead);
            if (dropCaches()) { // the cold replay between two cold baseline reads, so the disk's drift within a run hits both sides
                long fcBefore = timeFileChannelRead(plain, records);
                dropCaches();
                replay = timeReplay(queue, records.size());
                dropCaches();
                long fcAfter = timeFileChannelRead(plain, records);
                report("replay_cold", run, bytes, records.size(), replay, (fcBefore + fcAfter) / 2);
                System.out.printf(Locale.ROOT, "{\"name\":\"replay_cold_baselines\",\"run\":%d,\"fileChannelMBpsBefore\":%.0f,\"fileChannelMBpsAfter\":%.0f}%n",
                        run, mbps(bytes, fcBefore), mbps(bytes, fcAfter));
            } else {
                System.out.println("{\"name\":\"replay_cold\",\"skipped\":\"cannot drop the page cache (not root?)\"}");
            }
        }
    }

    /**
     * One untimed round of every timed path on a few records (append, replay, FileChannel write
     * and read), so the first timed run does not pay for compiling them, as JMH's warm-up
     * iterations would not.
     */
    private static void warmUp(Path root, JournalLayout layout, List<PageBackup> records) throws IOException {
        Path queue = fresh(root.resolve("warm-up"));
        timeAppend(queue, layout, records, new Histogram(3_600_000_000L, 3));
        timeReplay(queue, records.size());
        Path plain = queue.resolve("records.bin");
        timeFileChannelWrite(plain, records);
        timeFileChannelRead(plain, records);
        fresh(queue);
    }

    private static List<PageBackup> records(JournalLayout layout, int pages) {
        List<PageBackup> out = new ArrayList<>(2 * pages);
        SplittableRandom random = new SplittableRandom(1);
        int[] tokens = new int[pages * 64];
        for (int i = 0; i < tokens.length; i++) {
            tokens[i] = random.nextInt(32_000);
        }
        List<byte[]> hashes = PageHashChain.fullPageHashes(tokens, 64);
        for (int p = 0; p < pages; p++) {
            for (HiCachePool pool : HiCachePool.values()) {
                byte[] payload = new byte[(int) layout.payloadBytes(pool)];
                random.nextBytes(payload);
                out.add(new PageBackup(hashes.get(p), p == 0 ? null : hashes.get(p - 1),
                        java.util.Arrays.copyOfRange(tokens, p * 64, p * 64 + 64), p % 8, p, layout.layers(), pool, payload));
            }
        }
        return out;
    }

    private static long timeAppend(Path dir, JournalLayout layout, List<PageBackup> records, Histogram latency) {
        long start = System.nanoTime();
        try (HiCacheJournal journal = HiCacheJournal.open(JournalOptions.of(dir, layout))) {
            for (PageBackup page : records) {
                long t0 = System.nanoTime();
                long first = (long) page.position() * 64;
                journal.backup(page, java.util.stream.LongStream.range(first, first + 64).toArray());
                latency.recordValue(System.nanoTime() - t0);
            }
        }
        return System.nanoTime() - start;
    }

    private static long timeReplay(Path dir, int expected) {
        long start = System.nanoTime();
        HostPageCache cache = new HostPageCache(Long.MAX_VALUE);
        ReplayReport report = JournalReplayer.replay(dir, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.FAIL, cache, (r, b) -> { });
        long elapsed = System.nanoTime() - start;
        if (report.applied() != expected) {
            throw new IllegalStateException("replayed " + report.applied() + " of " + expected + " records");
        }
        return elapsed;
    }

    private static long timeFileChannelWrite(Path file, List<PageBackup> records) throws IOException {
        long start = System.nanoTime();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            for (PageBackup page : records) {
                ByteBuffer buffer = page.payloadBuffer();
                while (buffer.hasRemaining()) {
                    ch.write(buffer);
                }
            }
        }
        return System.nanoTime() - start;
    }

    private static long timeFileChannelRead(Path file, List<PageBackup> records) throws IOException {
        long start = System.nanoTime();
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            for (PageBackup page : records) {
                ByteBuffer buffer = ByteBuffer.allocate(page.payloadLength()); // heap pages, as replay produces
                while (buffer.hasRemaining() && ch.read(buffer) >= 0) {
                    // read the whole record
                }
            }
        }
        return System.nanoTime() - start;
    }

    private static void report(String name, int run, long bytes, int records, long nanos, long baselineNanos) {
        double mbps = mbps(bytes, nanos);
        double baseline = mbps(bytes, baselineNanos);
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"run\":%d,\"MBps\":%.0f,\"recordsPerSec\":%.0f,\"fileChannelMBps\":%.0f,\"ratio\":%.3f}%n",
                name, run, mbps, records / (nanos / 1e9), baseline, mbps / baseline);
    }

    private static double mbps(long bytes, long nanos) {
        return bytes / 1e6 / (nanos / 1e9);
    }

    /**
     * The page faults the calling thread has taken without waiting for I/O (Linux's
     * {@code /proc/thread-self/stat}, field 10); -1 where that is not readable. The append's own
     * faults show whether the journal's map was faulted in ahead of it.
     */
    private static long minorFaultsOfThisThread() {
        try {
            String stat = Files.readString(Path.of("/proc/thread-self/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[7]); // field 10 of the line; fields from the state (field 3) on
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static void sync() throws IOException, InterruptedException {
        new ProcessBuilder("sync").start().waitFor();
    }

    static boolean dropCaches() {
        try {
            sync();
            Files.writeString(Path.of("/proc/sys/vm/drop_caches"), "3");
            return true;
        } catch (IOException | InterruptedException | SecurityException e) {
            return false;
        }
    }

    static Path fresh(Path dir) throws IOException {
        FileTrees.delete(dir);
        return Files.createDirectories(dir);
    }
}
