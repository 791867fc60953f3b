package org.kvflow.samples.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.samples.demo.Demo;
import org.kvflow.traffic.CostModel;
import org.kvflow.traffic.IdealHits;
import org.kvflow.traffic.LayoutReport;
import org.kvflow.traffic.Latencies;
import org.kvflow.traffic.ModelledTtft;
import org.kvflow.traffic.TraceFile;
import org.kvflow.traffic.TraceReplay;
import org.kvflow.traffic.TraceRequest;
import org.kvflow.traffic.TtftModel;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvflow trace}: a serving trace (Mooncake's JSON lines) replayed through the pipeline,
 * pages only, shared KV beside the replicated baseline on the same per-rank pool: the trace's ideal
 * prefix hits, and per layout the tokens served from the device prefix cache and recomputed.
 */
@Command(name = "trace", mixinStandardHelpOptions = true, showDefaultValues = true,
        footer = {"%nExample:", "  kvflow trace --file mooncake-synthetic-trace.jsonl --cp 8 --pool-tokens 262144"},
        description = "Replay a serving trace (JSON lines: timestamp, input_length, output_length, hash_ids) through both layouts, pages only,"
                + " as fast as the pipeline takes it, and report prefix hits against the trace's ideal.")
final class TraceCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--file", required = true, description = "the trace") Path file;
    @Option(names = "--cp", defaultValue = "8", description = "CP size") int cp;
    @Option(names = "--page-size", defaultValue = "64", description = "tokens per page") int pageSize;
    @Option(names = "--pool-tokens", defaultValue = "262144", description = "pool tokens per rank (the same for both layouts)") long poolTokens;
    @Option(names = "--budget-bytes", converter = ByteSize.class, description = "instead of --pool-tokens: each rank's pool budget in bytes of DeepSeek V3.2 fp8 KV"
            + " (61 layers), whole pages") Long budgetBytes;
    @Option(names = "--skip", description = "leave out the trace's first N requests (the replay's clock starts at the next one)") Integer skip;
    @Option(names = "--head", description = "replay only the trace's first N requests (after --skip)") Integer head;
    @Option(names = "--host-bytes", converter = ByteSize.class, description = "a host tier of this many bytes of DeepSeek V3.2 fp8 KV for the instance (all its ranks),"
            + " fed by the device prefix cache's evictions; 0: none") Long hostBytes = 0L;
    @Option(names = "--host-gbps", description = "with --cost-model: the host tier's link to the device, GB/s, instead of the model's"
            + " hostSecondsPerToken (V3.2 fp8 KV, 61 layers, a token)") Double hostGbps;
    @Option(names = "--max-batch", defaultValue = "16", description = "requests admitted together (a request hits prefixes of requests finished"
            + " before its batch)") int maxBatch;
    @Option(names = "--pace", defaultValue = "max", description = "max: as fast as the pipeline takes requests; trace: at the trace's"
            + " timestamps (times --speed), later when the pipeline is busy, never dropped") String pace;
    @Option(names = "--speed", defaultValue = "1", description = "how many times the trace's own pace requests arrive at: with --pace trace"
            + " on the wall clock, with --cost-model on the modelled one") double speed;
    @Option(names = "--cost-model", description = "a cost model file (JSON): also report each layout's time to first token on a modelled"
            + " clock, the trace's requests arriving at its timestamps (times --speed) at one instance of this CP size") Path costModel;
    @Option(names = "--report", paramLabel = "DIR", description = "write charts there as PNG: pool occupancy and cached prefix, hit ratio,"
            + " and time to first token (modelled with --cost-model) against the trace's time, both layouts") Path reportDir;
    @Option(names = "--json", description = "print one JSON document") boolean json;
    @Option(names = "--model", description = "move real KV bytes instead of planning pages only: synthetic (the demo's two synthetic layers at"
            + " DeepSeek V3.2 widths, fp8 rows, computed and stored by the write stage)") String model;
    @Option(names = "--restart-after", paramLabel = "N", description = "restart the instance after the trace's first N requests: the device"
            + " cache is lost and a new pipeline serves the rest (default with --journal: half the requests)") Integer restartAfter;
    @Option(names = "--journal", paramLabel = "DIR", description = "with --model: the runs before the restart journal their pages (HiCache,"
            + " write-through) into this new or empty directory, a journal per layout, and the runs after it start warm from them: the"
            + " journal as a tier") Path journal;
    @Option(names = "--backend", description = "with --model: where the rows are computed and the pools live: java | cuda[:n] | opencl[:n] | auto"
            + " (default java)") String backend;
    @Mixin ClusterOptions cluster;

    @Override
    public Integer call() throws java.io.IOException {
        Flags.within("--cp", cp, 1, 1024);
        Flags.within("--page-size", pageSize, 1, 1024);
        if (budgetBytes != null) {
            if (spec.commandLine().getParseResult().hasMatchedOption("--pool-tokens")) {
                throw new MalformedInputException("--budget-bytes", "give it or --pool-tokens, not both");
            }
            long perPage = ClusterOptions.V32_KV_BYTES_PER_TOKEN * pageSize;
            Flags.within("--budget-bytes", budgetBytes, perPage, perPage * Integer.MAX_VALUE);
            poolTokens = budgetBytes / perPage * pageSize;
        }
        Flags.within("--pool-tokens", poolTokens, pageSize, (long) Integer.MAX_VALUE * pageSize);
        Flags.within("--max-batch", maxBatch, 1, 4096);
        if (!pace.equals("max") && !pace.equals("trace")) {
            throw new MalformedInputException("--pace", "must be max or trace, was \"" + pace + "\"");
        }
        if (!(speed > 0) || speed > 1e6) {
            throw new MalformedInputException("--speed", "must be in (0, 1e6], was " + speed);
        }
        double paceSpeed = pace.equals("trace") ? speed : 0;
        TraceReplay.KvBytes kv = kvBytes();
        if (!Files.isReadable(file)) {
            throw new MalformedInputException("--file", file + " is not a readable file");
        }
        TtftModel ttft = null;
        if (costModel != null) {
            if (!Files.isReadable(costModel)) {
                throw new MalformedInputException("--cost-model", costModel + " is not a readable file");
            }
            CostModel costs = CostModel.read(costModel);
            if (hostGbps != null) {
                if (!(hostGbps > 0) || hostGbps > 1e6) {
                    throw new MalformedInputException("--host-gbps", "must be in (0, 1e6], was " + hostGbps);
                }
                costs = costs.withHostLink(ClusterOptions.V32_KV_BYTES_PER_TOKEN, hostGbps * 1e9);
            }
            ttft = new TtftModel(costs, speed);
        } else if (hostGbps != null) {
            throw new MalformedInputException("--host-gbps", "prices host loads in the cost model: give --cost-model too");
        }
        if (reportDir != null) { // before the replay: a folder that cannot be made costs nothing
            Flags.folder("--report", reportDir);
        }
        List<TraceRequest> trace = TraceFile.read(file);
        if (skip != null) {
            Flags.within("--skip", skip, 0, trace.size() - 1);
            trace = trace.subList(skip, trace.size());
        }
        if (head != null) {
            Flags.within("--head", head, 1, Integer.MAX_VALUE);
            trace = trace.subList(0, Math.min(head, trace.size()));
        }
        long pageBytes = ClusterOptions.V32_KV_BYTES_PER_TOKEN * pageSize;
        Flags.within("--host-bytes", hostBytes, 0, pageBytes * Integer.MAX_VALUE);
        TraceReplay pagesOnly = new TraceReplay(cp, pageSize, (int) (poolTokens / pageSize), maxBatch, (int) (hostBytes / pageBytes));
        TraceReplay replay = restarted(kv == null ? pagesOnly : pagesOnly.withBytes(kv), trace.size());
        if (!cluster.simulate) {
            for (String flag : ClusterOptions.FLAGS) {
                if (spec.commandLine().getParseResult().hasMatchedOption(flag)) {
                    throw new MalformedInputException(flag, "is a flag of --simulate-cluster, which was not given");
                }
            }
        } else {
            if (ttft == null) {
                throw new MalformedInputException("--simulate-cluster", "needs --cost-model FILE: the simulation runs on modelled time");
            }
            return cluster.run(trace, replay, ttft.costs(), json, spec.commandLine().getOut());
        }
        double ideal = IdealHits.ratio(trace);
        LayoutReport shared = replay.replay(trace, true, paceSpeed, ttft);
        LayoutReport replicated = replay.replay(trace, false, paceSpeed, ttft);
        List<Path> charts = reportDir == null ? List.of() : TraceCharts.write(reportDir, trace, pageSize, List.of(shared, replicated));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectNode o = JsonNodeFactory.instance.objectNode().put("file", file.toString()).put("requests", trace.size())
                    .put("inputTokens", shared.inputTokens()).put("idealHitRatio", ideal).put("cp", cp).put("pageSize", pageSize)
                    .put("poolTokensPerRank", poolTokens).put("hostTierTokens", (long) replay.hostPages() * pageSize).put("maxBatch", maxBatch).put("pace", pace).put("speed", paceSpeed).put("peakHeapMb", peakHeapMb());
            if (ttft != null) {
                o.put("costModel", ttft.costs().name()).put("modelledSpeed", ttft.speed());
            }
            if (kv != null) {
                o.putObject("kvBytes").put("model", kv.model().name()).put("device", kv.device());
            }
            if (replay.restart() != null) {
                o.put("restartAfter", replay.restart().after());
                if (journal != null) {
                    o.put("journal", journal.toString());
                }
            }
            o.set("shared", layout(shared));
            o.set("replicated", layout(replicated));
            charts.forEach(c -> o.withArray("charts").add(c.toString()));
            out.println(o);
        } else {
            out.printf(Locale.ROOT, "trace %s: %d requests, %d prompt tokens; ideal prefix hits %.2f %%%n", file, trace.size(), shared.inputTokens(),
                    100 * ideal);
            out.printf(Locale.ROOT, "cp %d, %d pool tokens per rank (pages of %d), host tier of %d tokens, %s%n", cp, poolTokens, pageSize,
                    (long) replay.hostPages() * pageSize, kv == null ? "pages only" : "KV bytes of " + kv.model().name() + " on " + kv.device());
            for (LayoutReport r : List.of(shared, replicated)) {
                Latencies latency = r.latency();
                out.printf(Locale.ROOT, "%-10s hits %.2f %%: %d tokens from the device prefix cache, %d from the host tier, %d recomputed;"
                                + " %d served, %d refused %s;"
                                + " peak %d pages a rank, %d evicted; %d queued (wait p99 %.3f s); %.1f s (%.0f requests/s); arrival to result p50 %.3f s, p99 %.3f s%n", r.layout(),
                        100 * r.hitRatio(), r.deviceHitTokens(), r.hostHitTokens(), r.recomputedTokens(), r.completed(), r.requests() - r.completed(), r.refused(),
                        r.peakPagesPerRank(), r.evictedPages(), r.queued(), r.queueWait().p99(), r.seconds(), r.requestsPerSecond(), latency.p50(), latency.p99());
                if (replay.restart() != null) {
                    out.printf(Locale.ROOT, "%-10s restarted after %d requests: %d tokens restored from the journal into the device cache%n", "",
                            replay.restart().after(), r.warmStartTokens());
                }
                if (r.modelled() != null) {
                    ModelledTtft m = r.modelled();
                    Latencies first = m.ttft();
                    out.printf(Locale.ROOT, "%-10s modelled (%s, arrivals at %sx the trace's pace): TTFT p50 %.3f s, p90 %.3f s, p99 %.3f s;"
                                    + " prefill alone p50 %.3f s, p99 %.3f s%n", "", m.costModel(), ttft.speed(), first.p50(), first.p90(),
                            first.p99(), m.prefill().p50(), m.prefill().p99());
                }
            }
            if (!charts.isEmpty()) {
                out.println("charts: " + String.join(", ", charts.stream().map(Path::toString).toList()));
            }
        }
        out.flush();
        return KvflowCli.EXIT_OK;
    }

    /**
     * The model and device real KV bytes come from, or null to plan pages only; refuses what moves
     * no bytes or cannot hold them: a backend without a model, a model it does not know, a host tier
     * (pages only), the cluster simulation (pages only), pages other than the model's 64 tokens.
     */
    private TraceReplay.KvBytes kvBytes() {
        if (model == null) {
            if (backend != null) {
                throw new MalformedInputException("--backend", "picks where KV bytes are computed: give --model too");
            }
            return null;
        }
        if (!model.equals("synthetic")) {
            throw new MalformedInputException("--model", "synthetic, not " + model);
        }
        if (hostBytes > 0) {
            throw new MalformedInputException("--host-bytes", "the host tier plans pages only: with --model, drop it");
        }
        if (cluster.simulate) {
            throw new MalformedInputException("--simulate-cluster", "its instances plan pages only: drop --model");
        }
        if (pageSize != 64) {
            throw new MalformedInputException("--page-size", "with --model pages hold 64 tokens, the model's; was " + pageSize);
        }
        return new TraceReplay.KvBytes(Demo.syntheticModel(7), backend == null ? "java" : backend);
    }

    /** The replay with the restart the flags ask for (a cold one, or warm from a journal), checked; or as it is. */
    private TraceReplay restarted(TraceReplay replay, int requests) throws java.io.IOException {
        if (journal == null && restartAfter == null) {
            return replay;
        }
        if (journal != null) {
            if (model == null) {
                throw new MalformedInputException("--journal", "a journal holds KV bytes: give --model too");
            }
            if (Files.exists(journal) && (!Files.isDirectory(journal) || Flags.holdsEntries(journal))) {
                throw new MalformedInputException("--journal", journal + " is not a new or empty directory");
            }
        }
        int after = restartAfter != null ? restartAfter : Math.max(1, requests / 2);
        Flags.within("--restart-after", after, 1, Integer.MAX_VALUE);
        return replay.restartAfter(after, journal);
    }

    /** The JVM's heap at its highest so far, in MiB (each heap pool's peak, summed). */
    private static double peakHeapMb() {
        return java.lang.management.ManagementFactory.getMemoryPoolMXBeans().stream()
                .filter(p -> p.getType() == java.lang.management.MemoryType.HEAP)
                .mapToLong(p -> p.getPeakUsage().getUsed()).sum() / (1024.0 * 1024.0);
    }

    private static ObjectNode layout(LayoutReport r) {
        Latencies latency = r.latency();
        ObjectNode o = JsonNodeFactory.instance.objectNode().put("hitRatio", r.hitRatio()).put("hitTokens", r.hitTokens())
                .put("deviceHitTokens", r.deviceHitTokens()).put("hostHitTokens", r.hostHitTokens())
                .put("recomputedTokens", r.recomputedTokens()).put("completed", r.completed()).put("peakPagesPerRank", r.peakPagesPerRank())
                .put("evictedPages", r.evictedPages()).put("queued", r.queued()).put("queueWaitP50S", r.queueWait().p50())
                .put("queueWaitP99S", r.queueWait().p99())
                .put("seconds", r.seconds()).put("requestsPerSecond", r.requestsPerSecond()).put("latencyP50S", latency.p50())
                .put("latencyP90S", latency.p90()).put("latencyP99S", latency.p99()).put("warmStartTokens", r.warmStartTokens());
        if (r.modelled() != null) {
            ModelledTtft m = r.modelled();
            Latencies first = m.ttft();
            o.put("ttftP50S", first.p50()).put("ttftP90S", first.p90()).put("ttftP99S", first.p99()).put("ttftMaxS", first.max())
                    .put("prefillP50S", m.prefill().p50()).put("prefillP90S", m.prefill().p90()).put("prefillP99S", m.prefill().p99());
        }
        ObjectNode refused = o.putObject("refused");
        r.refused().forEach(refused::put);
        return o;
    }
}
