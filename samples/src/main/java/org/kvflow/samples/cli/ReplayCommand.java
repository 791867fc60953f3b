package org.kvflow.samples.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvflow replay}: replays a HiCache journal into a host page cache and reports what was
 * restored and what was refused, with a progress bar on a terminal. Exit 0 after a replay, 3 with
 * {@code --verify} when any record was refused.
 */
@Command(name = "replay", mixinStandardHelpOptions = true, showDefaultValues = true,
        footer = {"%nExample:", "  kvflow replay --journal /tmp/kvflow-journal --from 0 --verify"},
        description = "Replay a HiCache journal (contract §11.4) into a host cache; report restored and refused records.")
final class ReplayCommand implements Callable<Integer> {
    /** {@code --verify} found refused records. */
    static final int EXIT_VERIFY_FAILED = 3;

    @Spec
    private CommandSpec spec;

    @Option(names = "--journal", required = true, paramLabel = "DIR", description = "journal directory") Path journal;
    @Option(names = "--from", paramLabel = "RECORD|0xINDEX", description = "start at this record number (decimal, 0 is the first) or at this index as printed (0x…)")
    String from;
    @Option(names = "--verify", description = "exit 3 if any record is refused") boolean verify;
    @Option(names = "--host-bytes", defaultValue = "16GiB", converter = ByteSize.class,
            description = "host cache capacity: bytes, or with a unit such as 16GiB (default ${DEFAULT-VALUE})")
    long hostBytes;
    @Option(names = "--json", description = "print JSON") boolean json;

    @Override
    public Integer call() {
        ReplayStart start = from == null ? ReplayStart.fromStart() : JournalIndex.start("--from", from);
        HostPageCache cache = new HostPageCache(hostBytes);
        ProgressBar bar = new ProgressBar(journal, from == null);
        ReplayReport report = JournalReplayer.replay(journal, start, JournalReplayer.OnCorrupt.SKIP, cache, bar::update);
        bar.finish();
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectNode o = JsonNodeFactory.instance.objectNode()
                    .put("records", report.records()).put("applied", report.applied()).put("payloadBytes", report.payloadBytes())
                    .put("checkpoints", report.checkpoints()).put("hostEntries", cache.size()).put("hostBytes", cache.bytes())
                    .put("evictedForSpace", cache.evictedForSpace());
            ArrayNode rejected = o.putArray("refused");
            report.rejected().forEach(r -> rejected.addObject().put("index", JournalIndex.format(r.index())).put("reason", r.reason()));
            ArrayNode damage = o.putArray("damage");
            report.damage().forEach(d -> damage.addObject().put("file", d.file()).put("firstBadIndex", JournalIndex.format(d.firstBadIndex()))
                    .put("bytesLost", d.bytesLost()).put("reason", d.reason()));
            JsonOutput.print(out, o);
        } else {
            out.printf(Locale.ROOT, "replayed %d records (%d applied, %d checkpoints): %d host entries, %.1f MB restored%n",
                    report.records(), report.applied(), report.checkpoints(), cache.size(), report.payloadBytes() / 1e6);
            if (cache.evictedForSpace() > 0) {
                out.printf(Locale.ROOT, "evicted %d host entries for space (--host-bytes %d holds %d)%n", cache.evictedForSpace(), hostBytes, cache.size());
            }
            out.printf(Locale.ROOT, "refused %d record(s)%n", report.rejected().size());
            report.rejected().forEach(r -> out.println("  " + JournalIndex.format(r.index()) + ": " + r.reason()));
            report.damage().forEach(d -> out.println("damaged " + d.file() + " from record " + JournalIndex.format(d.firstBadIndex())
                    + ": " + d.reason() + " (" + d.bytesLost() + " bytes lost; every record before it was replayed)"));
            out.flush();
        }
        return !report.damage().isEmpty() || verify && !report.rejected().isEmpty() ? EXIT_VERIFY_FAILED : KvflowCli.EXIT_OK;
    }

    /**
     * Records, MB, MB/s and, from the journal's start, a bar and an ETA on stderr when stderr is a
     * terminal; silent otherwise. From {@code --from} the bytes still ahead are unknown: no bar, no ETA.
     */
    private static final class ProgressBar {
        private final boolean terminal = System.console() != null;
        private final long totalBytes;
        private final long startNanos = System.nanoTime();
        private long lastDraw;

        ProgressBar(Path journal, boolean fromStart) {
            long total = 0;
            if (terminal && fromStart) {
                try {
                    for (Path p : org.kvflow.journal.HiCacheJournal.cycleFiles(journal)) {
                        total += java.nio.file.Files.size(p);
                    }
                } catch (java.io.IOException | org.kvflow.journal.JournalIoException e) {
                    total = 0;
                }
            }
            this.totalBytes = total;
        }

        void update(long records, long bytes) {
            long now = System.nanoTime();
            if (!terminal || now - lastDraw < 100_000_000L) {
                return;
            }
            lastDraw = now;
            double seconds = (now - startNanos) / 1e9;
            double rate = bytes / 1e6 / Math.max(seconds, 1e-3);
            double fraction = totalBytes == 0 ? 0 : Math.min(1.0, (double) bytes / totalBytes);
            if (totalBytes == 0) {
                System.err.printf(Locale.ROOT, "\r%,d records  %.1f MB  %.1f MB/s ", records, bytes / 1e6, rate);
                System.err.flush();
                return;
            }
            int filled = (int) (fraction * 30);
            double eta = rate <= 0 ? 0 : Math.max(0, (totalBytes - bytes) / 1e6 / rate);
            System.err.printf(Locale.ROOT, "\r[%s%s] %,d records  %.1f MB  %.1f MB/s  ETA %.0fs ", "#".repeat(filled),
                    " ".repeat(30 - filled), records, bytes / 1e6, rate, eta);
            System.err.flush();
        }

        void finish() {
            if (terminal && lastDraw != 0) {
                System.err.println();
            }
        }
    }
}
