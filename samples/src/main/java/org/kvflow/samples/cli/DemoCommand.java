package org.kvflow.samples.cli;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Measurement;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.kvflow.core.FileTrees;
import org.kvflow.dsl.PipelineDefinitionException;
import org.kvflow.samples.demo.Demo;
import org.kvflow.samples.demo.DemoCharts;
import org.kvflow.samples.demo.DemoReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvflow demo}: the embedded default. Streams a few hundred requests through a CP shared-KV
 * pipeline to a decode process over TCP with a HiCache journal, and through the replicated
 * baseline; prints a live progress line on a terminal and the report. Exit 0 when every check
 * passed, 4 when one did not.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, showDefaultValues = true,
        footer = {"%nExample:", "  kvflow demo --cp 8 --backend java --journal /tmp/kvflow-journal"},
        description = "CP shared-KV prefill on a GLM-5-like synthetic NSA/MLA model, end to end, checked against replicated CP.")
final class DemoCommand implements Callable<Integer> {
    static final int EXIT_CHECKS_FAILED = 4;

    @Spec
    private CommandSpec spec;

    @Option(names = "--cp", defaultValue = "8", description = "CP size (default ${DEFAULT-VALUE})") int cp;
    @Option(names = "--requests", defaultValue = "200", description = "requests to stream (default ${DEFAULT-VALUE})") int requests;
    @Option(names = "--max-len", defaultValue = "640", description = "largest fresh prompt in tokens (default ${DEFAULT-VALUE})") int maxLen;
    @Option(names = "--backend", defaultValue = "java", description = "compute kernels (KV rows, indexer, top-k, attention): java | cuda[:n] (pools in GPU memory too) | opencl[:n] | auto") String backend;
    @Option(names = "--seed", defaultValue = "7") long seed;
    @Option(names = "--transfer", defaultValue = "tcp", description = "PD transfer engine to the decode process: tcp (page bytes in frames) | ucx"
            + " (one-sided UCX puts into its pool in native memory; needs UCX's libraries) | cuda-ipc (GPU-to-GPU copies into its pool in GPU"
            + " memory; needs --backend cuda)") String transfer;
    @Option(names = "--rank-processes", description = "hold each CP rank's pools in a process of its own, as one process per GPU would"
            + " (opened in place on cuda, reached by staged copies over the control lines elsewhere)") boolean rankProcesses;
    @Option(names = "--journal", paramLabel = "DIR", description = "write the HiCache journal into this new or empty directory and keep it (what replay and journal-info --journal DIR read; default: a temporary directory)") Path journal;
    @Option(names = "--json", description = "print the report as JSON") boolean json;
    @Option(names = "--metrics", description = "print every kvflow meter at the end (the Prometheus text format; with --json, one object)") boolean metrics;
    @Option(names = "--report", paramLabel = "DIR", description = "write the run's charts there as PNG: pages held per rank over the run,"
            + " shared vs replicated (" + DemoCharts.PAGES + "), and logical capacity against CP size (" + DemoCharts.CAPACITY + ")")
    Path reportDir;
    @Option(names = "--metrics-port", paramLabel = "PORT", description = "serve GET /metrics (Prometheus text) on 127.0.0.1:PORT while the demo runs (0: any free port, printed on stderr)")
    Integer metricsPort;
    @Option(names = "--host-bytes", defaultValue = "1GiB", converter = ByteSize.class,
            description = "host cache the final journal replay fills: bytes, or with a unit such as 512MiB (default ${DEFAULT-VALUE})")
    long hostBytes;

    /** The demo's bounds: it holds every rank's pools and both layouts' runs in one JVM. */
    static final int MAX_CP = 64;
    static final int MAX_REQUESTS = 100_000;
    static final int MAX_LEN = 131_072;

    @Override
    public Integer call() throws Exception {
        Flags.within("--cp", cp, 2, MAX_CP);
        Flags.within("--requests", requests, 1, MAX_REQUESTS);
        Flags.within("--max-len", maxLen, 1, MAX_LEN);
        PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
        Flags.within("--host-bytes", hostBytes, 1, Long.MAX_VALUE);
        if (metricsPort != null) {
            Flags.within("--metrics-port", metricsPort, 0, 65_535);
        }
        if (reportDir != null) { // before the run, not after it: a folder that cannot be made costs nothing
            Flags.folder("--report", reportDir);
        }
        Demo demo;
        try {
            demo = new Demo(cp, requests, maxLen, seed, backend, registry, hostBytes, rankProcesses, transfer);
            org.kvflow.transfer.TransferEngines.find(transfer); // an engine whose native library does not load is refused before anything runs
        } catch (IllegalArgumentException | org.kvflow.transfer.TransferEngineUnavailableException e) {
            throw new org.kvflow.core.json.MalformedInputException("--transfer", e.getMessage());
        }
        if (journal != null && Flags.holdsEntries(journal)) {
            throw new org.kvflow.core.json.MalformedInputException("--journal", journal + " is not empty: the demo writes a new journal there");
        }
        Path dir = journal != null ? journal : Files.createTempDirectory("kvflow-demo-journal");
        boolean terminal = System.console() != null;
        DemoReport report;
        MetricsEndpoint endpoint = null;
        try { // the temporary journal goes however the run ends, a refused flag too
            try {
                demo.checkShared(dir);
            } catch (PipelineDefinitionException e) {
                throw new org.kvflow.core.json.MalformedInputException("--backend", e.getMessage());
            }
            if (metricsPort != null) {
                endpoint = MetricsEndpoint.start(registry, "127.0.0.1", metricsPort);
                spec.commandLine().getErr().println("kvflow: metrics on http://127.0.0.1:" + endpoint.port() + "/metrics");
                spec.commandLine().getErr().flush();
            }
            report = demo.run(dir, p -> {
                if (terminal && (p[0] % 5 == 0 || p[0] == p[1])) {
                    System.err.printf(Locale.ROOT, "\r%s %d/%d requests ", p[0] <= p[1] / 2 ? "replicated baseline" : "shared KV -> decode",
                            p[0] <= p[1] / 2 ? p[0] : p[0] - p[1] / 2, p[1] / 2);
                    System.err.flush();
                }
            }, reportDir != null);
        } finally {
            if (endpoint != null) {
                endpoint.close();
            }
            if (terminal) {
                System.err.println();
            }
            if (journal == null) {
                delete(dir);
            }
        }
        java.util.List<Path> charts = reportDir == null ? java.util.List.of() : DemoCharts.write(reportDir, report, Demo.PAGE_SIZE);
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            o.put("cpSize", report.cpSize()).put("requests", report.requests()).put("completed", report.completed())
                    .put("debugChecks", org.kvflow.core.DebugMode.checksRun())
                    .put("failed", report.failed()).put("tokens", report.tokens()).put("batches", report.batches())
                    .put("seconds", Math.round(report.seconds() * 1000) / 1000.0)
                    .put("peakPhysicalPagesShared", report.peakSharedPages()).put("peakPhysicalPagesReplicated", report.peakReplicatedPages())
                    .put("pagesPerRank", report.pagesPerRank()).put("capacityRatio", report.capacityRatio())
                    .put("scratchBytes", report.scratchBytes()).put("kernelDevice", report.kernelDevice()).put("rankProcesses", rankProcesses).put("transfer", transfer).put("transferBytes", report.transferBytes())
                    .put("journalRecords", report.journalRecords()).put("journalRefused", report.journalRefused())
                    .put("checksPassed", report.checksPassed()).put("ok", report.ok());
            report.firstFailures().forEach(f -> o.withArray("firstFailures").add(f));
            charts.forEach(c -> o.withArray("charts").add(c.toString()));
            if (metrics) {
                ObjectNode m = o.putObject("metrics");
                meters(registry).forEach(line -> m.put(line[0], Double.parseDouble(line[1])));
            }
            JsonOutput.print(out, o);
        } else {
            printText(out, demo, report);
            if (!charts.isEmpty()) {
                out.println("  charts     " + String.join(", ", charts.stream().map(Path::toString).toList()));
            }
            if (metrics) {
                out.print(registry.scrape());
            }
            out.flush();
        }
        return report.ok() ? KvflowCli.EXIT_OK : EXIT_CHECKS_FAILED;
    }

    static void printText(PrintWriter out, Demo demo, DemoReport r) {
        out.printf(Locale.ROOT, "kvflow demo: CP%d shared KV, GLM-5-like NSA/MLA (latent 512 + rope 64, index 128, fp8, 2 layers), page 64, bs>1%n",
                r.cpSize());
        out.printf(Locale.ROOT, "  requests   %d completed, %d failed%n", r.completed(), r.failed());
        r.firstFailures().forEach(f -> out.println("  failed     " + f));
        out.printf(Locale.ROOT, "  tokens     %,d prefilled in %.1f s (%,.0f tokens/s), %d batches%n", r.tokens(), r.seconds(),
                r.tokens() / r.seconds(), r.batches());
        out.printf(Locale.ROOT, "  pages      peak held: shared %,d physical for %,d logical (1 copy); replicated %,d physical for %,d logical (%d copies)%n",
                r.peakSharedPages(), r.peakSharedPages(), r.peakReplicatedPages(), r.peakReplicatedPages() / r.cpSize(), r.cpSize());
        out.printf(Locale.ROOT, "  capacity   same per-rank pool: %.4fx the logical pages of replicated CP%d, (cp*N-1)/(N-1) for N = %d pages/rank%n",
                r.capacityRatio(), r.cpSize(), r.pagesPerRank());
        out.printf(Locale.ROOT, "  scratch    full view peak %.1f MB (beside the pools, not in the ratio)%n", r.scratchBytes() / 1e6);
        out.printf(Locale.ROOT, "  kernels    KV rows, indexer top-k and attention on %s; rank pools and views in %s%s%n", r.kernelDevice(),
                r.kernelDevice().startsWith("cuda") ? "GPU memory" : "host memory", demo.rankProcesses() ? ", each rank's pools in a process of its own" : "");
        out.printf(Locale.ROOT, "  transfer   %.1f MB of KV to the decode process (pid %d) by %s%n", r.transferBytes() / 1e6, r.decodePid(), r.transfer());
        out.printf(Locale.ROOT, "  journal    %d page records, replayed with %d refused%n", r.journalRecords(), r.journalRefused());
        out.printf(Locale.ROOT, "  checks     %d/%d requests: decode KV == replicated KV%s%n", r.checksPassed(), r.requests(),
                r.ok() ? " -- all passed" : " -- FAILED");
    }

    private static java.util.List<String[]> meters(MeterRegistry registry) {
        return registry.getMeters().stream()
                .sorted(Comparator.comparing((Meter m) -> m.getId().getName()).thenComparing(m -> m.getId().getTags().toString()))
                .flatMap(m -> {
                    String name = m.getId().getName() + m.getId().getTags().stream().map(t -> "," + t.getKey() + "=" + t.getValue())
                            .reduce("", String::concat);
                    java.util.List<String[]> lines = new java.util.ArrayList<>();
                    for (Measurement measure : m.measure()) {
                        lines.add(new String[] {name + "." + measure.getStatistic().getTagValueRepresentation(),
                                String.format(Locale.ROOT, "%.3f", measure.getValue())});
                    }
                    return lines.stream();
                }).toList();
    }

    private static void delete(Path dir) {
        try {
            FileTrees.delete(dir);
        } catch (java.io.IOException e) {
            System.err.println("kvflow: could not remove " + dir + ": " + e.getMessage());
        }
    }
}
