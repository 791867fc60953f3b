package org.kvflow.samples.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.OptionalInt;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.traffic.ClusterReport;
import org.kvflow.traffic.ClusterSimulation;
import org.kvflow.traffic.ClusterSpec;
import org.kvflow.traffic.CostModel;
import org.kvflow.traffic.Router;
import org.kvflow.traffic.TraceReplay;
import org.kvflow.traffic.TraceRequest;
import picocli.CommandLine.Option;

/**
 * {@code kvflow trace --simulate-cluster}'s flags and what it prints: the cluster at each load, both
 * layouts, and the fewest prefill instances each layout needs for the bound, so the GPUs shared KV
 * saves.
 */
final class ClusterOptions {
    /** DeepSeek V3.2's fp8 KV over its 61 layers: the bytes of one token a PD transfer moves. */
    static final long V32_KV_BYTES_PER_TOKEN = new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3).bytesPerTokenAllLayers();

    /** The flags that mean something only with {@code --simulate-cluster}. */
    static final List<String> FLAGS = List.of("--instances", "--decode-instances", "--router", "--pd-gbps", "--kv-bytes-per-token", "--loads",
            "--slo-s", "--slo-attainment", "--max-instances");

    @Option(names = "--simulate-cluster", description = "instead of the replay: a cluster by discrete-event simulation (needs --cost-model);"
            + " every prefill instance is a real pages-only pipeline") boolean simulate;
    @Option(names = "--instances", defaultValue = "4", description = "prefill instances of CP size --cp") int instances;
    @Option(names = "--decode-instances", defaultValue = "2", description = "decode instances, taken in turn") int decodeInstances;
    @Option(names = "--router", defaultValue = "prefix-aware", description = "round-robin, least-loaded or prefix-aware") String router;
    @Option(names = "--pd-gbps", defaultValue = "25", description = "each decode instance's PD link, GB/s (0: transfer left out)") double pdGbps;
    @Option(names = "--kv-bytes-per-token", description = "KV bytes a token moves to decode (default: DeepSeek V3.2 fp8, 61 layers)")
    Long kvBytesPerToken;
    @Option(names = "--loads", split = ",", defaultValue = "1,4,16", description = "arrival rates, times the trace's own") List<Double> loads;
    @Option(names = "--slo-s", defaultValue = "30", description = "the time-to-first-token bound, seconds") double sloSeconds;
    @Option(names = "--slo-attainment", defaultValue = "0.9", description = "the share of requests that must meet it") double attainment;
    @Option(names = "--max-instances", defaultValue = "64", description = "the most prefill instances the search tries") int maxInstances;

    /** Checks the flags and builds the cluster they describe. */
    ClusterSpec spec() {
        Flags.within("--instances", instances, 1, 4096);
        Flags.within("--decode-instances", decodeInstances, 1, 4096);
        Flags.within("--max-instances", maxInstances, 1, 4096);
        if (!(pdGbps >= 0) || pdGbps > 1e6) {
            throw new MalformedInputException("--pd-gbps", "must be in [0, 1e6], was " + pdGbps);
        }
        if (!(sloSeconds > 0) || sloSeconds > 1e9) {
            throw new MalformedInputException("--slo-s", "must be in (0, 1e9], was " + sloSeconds);
        }
        if (!(attainment > 0) || attainment > 1) {
            throw new MalformedInputException("--slo-attainment", "must be in (0, 1], was " + attainment);
        }
        for (double load : loads) {
            if (!(load > 0) || load > 1e6) {
                throw new MalformedInputException("--loads", "each must be in (0, 1e6], was " + load);
            }
        }
        long bytes = kvBytesPerToken == null ? V32_KV_BYTES_PER_TOKEN : kvBytesPerToken;
        Flags.within("--kv-bytes-per-token", bytes, 0, 1L << 40);
        Router r;
        try {
            r = Router.of(router);
        } catch (IllegalArgumentException e) {
            throw new MalformedInputException("--router", e.getMessage());
        }
        return new ClusterSpec(instances, decodeInstances, r, pdGbps * 1e9, bytes);
    }

    /** Runs the simulation on {@code trace} and prints it; returns the exit code. */
    int run(List<TraceRequest> trace, TraceReplay sizes, CostModel costs, boolean json, PrintWriter out) {
        ClusterSpec spec = spec();
        ClusterSimulation sim = new ClusterSimulation(sizes, costs);
        ObjectNode doc = JsonNodeFactory.instance.objectNode().put("requests", trace.size()).put("cp", sizes.cp())
                .put("poolTokensPerRank", (long) sizes.pagesPerRank() * sizes.pageSize()).put("hostTierTokens", (long) sizes.hostPages() * sizes.pageSize())
                .put("costModel", costs.name())
                .put("prefillInstances", spec.prefillInstances()).put("decodeInstances", spec.decodeInstances()).put("router", spec.router().flag())
                .put("pdGbps", pdGbps).put("kvBytesPerToken", spec.kvBytesPerToken()).put("sloS", sloSeconds).put("sloAttainment", attainment);
        ArrayNode byLoad = doc.putArray("loads");
        if (!json) {
            out.printf(Locale.ROOT, "cluster: %d prefill instances of CP %d (%d pool tokens a rank, a host tier of %d tokens each), %d decode"
                            + " instances at %s GB/s, %s router, cost model %s; SLO: TTFT <= %s s for %.0f %% of requests%n", spec.prefillInstances(),
                    sizes.cp(), (long) sizes.pagesPerRank() * sizes.pageSize(), (long) sizes.hostPages() * sizes.pageSize(), spec.decodeInstances(),
                    pdGbps, spec.router().flag(), costs.name(), sloSeconds, 100 * attainment);
        }
        for (double load : loads) {
            ObjectNode l = byLoad.addObject().put("load", load);
            OptionalInt[] needed = new OptionalInt[2];
            for (int s = 0; s < 2; s++) {
                boolean shared = s == 0;
                ClusterReport r = sim.run(trace, shared, spec, load, sloSeconds);
                needed[s] = sim.instancesFor(trace, shared, spec, load, sloSeconds, attainment, maxInstances);
                l.set(r.layout(), layout(r, needed[s], sizes.cp()));
                if (!json) {
                    out.printf(Locale.ROOT, "%5sx %-10s SLO met %.1f %%, TTFT p50 %.2f s, p99 %.2f s, %.2f requests/s, hits %.2f %% (instances %.2f-%.2f %%),"
                                    + " refused %d; needs %s%n", fmt(load), r.layout(), 100 * r.sloAttainment(), r.ttft().p50(), r.ttft().p99(),
                            r.requestsPerSecond(), 100 * r.hitRatio(), 100 * min(r.hitRatioPerInstance()), 100 * max(r.hitRatioPerInstance()),
                            r.refused(), needed[s].isPresent() ? needed[s].getAsInt() + " instances (" + needed[s].getAsInt() * sizes.cp() + " GPUs)"
                                    : "more than " + maxInstances + " instances");
                }
            }
            if (needed[0].isPresent() && needed[1].isPresent()) {
                int saved = (needed[1].getAsInt() - needed[0].getAsInt()) * sizes.cp();
                l.put("prefillGpusSaved", saved);
                if (!json) {
                    out.printf(Locale.ROOT, "%5sx shared KV saves %d prefill GPUs for the SLO%n", fmt(load), saved);
                }
            }
        }
        if (json) {
            out.println(doc);
        }
        out.flush();
        return KvflowCli.EXIT_OK;
    }

    private static ObjectNode layout(ClusterReport r, OptionalInt needed, int cp) {
        ObjectNode o = JsonNodeFactory.instance.objectNode().put("sloAttainment", r.sloAttainment()).put("ttftP50S", r.ttft().p50())
                .put("ttftP90S", r.ttft().p90()).put("ttftP99S", r.ttft().p99()).put("requestsPerSecond", r.requestsPerSecond())
                .put("hitRatio", r.hitRatio()).put("served", r.served()).put("refused", r.refused());
        ArrayNode per = o.putArray("hitRatioPerInstance");
        r.hitRatioPerInstance().forEach(per::add);
        ArrayNode routed = o.putArray("requestsPerInstance");
        r.requestsPerInstance().forEach(routed::add);
        if (needed.isPresent()) {
            o.put("instancesForSlo", needed.getAsInt()).put("gpusForSlo", needed.getAsInt() * cp);
        } else {
            o.putNull("instancesForSlo");
        }
        return o;
    }

    private static String fmt(double load) {
        return load == Math.rint(load) ? Long.toString((long) load) : Double.toString(load);
    }

    private static double min(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).min().orElse(0);
    }

    private static double max(List<Double> values) {
        return values.stream().mapToDouble(Double::doubleValue).max().orElse(0);
    }
}
