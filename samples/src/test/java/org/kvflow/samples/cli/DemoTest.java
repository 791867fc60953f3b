package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The demo end to end at a size CI affords: decode process, TCP, journal, replicated baseline. */
class DemoTest {
    @TempDir
    Path dir;

    /** With diagnostics on (contract §12) the demo runs its owner-write, page-group and full-view checks and reports how many. */
    @Test
    void demoWithDiagnosticsRunsAndCountsItsChecks() throws Exception {
        String before = System.setProperty("cpskv.debug", "true");
        try {
            Cli.Result r = Cli.run("demo", "--cp", "4", "--requests", "8", "--max-len", "100", "--json");
            assertThat(r.exit()).as(r.err()).isZero();
            JsonNode o = new ObjectMapper().readTree(r.out());
            assertThat(o.get("checksPassed").asInt()).isEqualTo(8);
            assertThat(o.get("debugChecks").asLong()).isGreaterThan(o.get("tokens").asLong());
        } finally {
            if (before == null) {
                System.clearProperty("cpskv.debug");
            } else {
                System.setProperty("cpskv.debug", before);
            }
        }
    }

    /**
     * Each rank's pools in a process of its own, reached from the heap by staged copies: every
     * stage, backup and the tcp transfer included, works on them, and the checks pass (the backup's
     * staging and the transfer's reads on reactor-netty's loops both once failed here).
     */
    @Test
    void demoWithRankProcessesRunsAndEveryCheckPasses() throws Exception {
        Cli.Result r = Cli.run("demo", "--cp", "4", "--requests", "8", "--max-len", "100", "--json", "--rank-processes");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode o = new ObjectMapper().readTree(r.out());
        assertThat(o.get("rankProcesses").asBoolean()).isTrue();
        assertThat(o.get("completed").asInt()).isEqualTo(8);
        assertThat(o.get("checksPassed").asInt()).isEqualTo(8);
        assertThat(o.get("journalRefused").asInt()).isZero();
        assertThat(o.get("ok").asBoolean()).isTrue();
    }

    @Test
    void demoRunsAndEveryCheckPasses() throws Exception {
        Cli.Result r = Cli.run("demo", "--cp", "4", "--requests", "16", "--max-len", "200", "--json", "--journal", dir.toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        JsonNode o = new ObjectMapper().readTree(r.out());
        assertThat(o.get("completed").asInt()).isEqualTo(16);
        assertThat(o.get("checksPassed").asInt()).isEqualTo(16);
        assertThat(o.get("journalRecords").asLong()).isPositive();
        assertThat(o.get("journalRefused").asLong()).isZero();
        assertThat(o.get("capacityRatio").asDouble()).isBetween(3.96, 4.04);
        assertThat(o.get("peakPhysicalPagesReplicated").asLong() % 4).isZero();
        assertThat(o.get("batches").asLong()).as("the shared run's batches, read from its meters").isBetween(1L, 16L);
        // whole pages of 2 layers × (41,984 B MLA + 8,448 B indexer) went to decode
        assertThat(o.get("transferBytes").asLong()).isPositive().satisfies(b -> assertThat(b % 100_864).isZero());
        assertThat(o.get("ok").asBoolean()).isTrue();
        Cli.Result info = Cli.run("journal-info", "--journal", dir.toString());
        assertThat(info.out()).as("--journal DIR is the same folder for demo and journal-info").contains("records " + o.get("journalRecords").asLong());
        assertThat(Cli.run("replay", "--journal", dir.toString()).out()).startsWith("replayed " + o.get("journalRecords").asLong() + " records");
        Cli.Result again = Cli.run("demo", "--journal", dir.toString());
        assertThat(again.exit()).isEqualTo(2);
        assertThat(again.err()).isEqualTo("kvflow: --journal: " + dir + " is not empty: the demo writes a new journal there" + System.lineSeparator());
    }

    @Test
    void metricsPrintInThePrometheusTextFormatWithBothLayoutsApart() {
        Cli.Result r = Cli.run("demo", "--cp", "2", "--requests", "6", "--max-len", "80", "--metrics", "--metrics-port", "0");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.err()).containsPattern("kvflow: metrics on http://127\\.0\\.0\\.1:\\d+/metrics");
        assertThat(r.out()).contains("# HELP kvflow_requests_total ", "# TYPE kvflow_requests_total counter",
                "kvflow_requests_total{layout=\"shared\",outcome=\"completed\",pipeline=\"kvflow\"} 6.0",
                "kvflow_requests_total{layout=\"replicated\",outcome=\"completed\",pipeline=\"kvflow\"} 6.0",
                "kvflow_pages_host_bytes{layout=\"shared\",pipeline=\"kvflow\",stage=\"write\"} 0.0")
                .as("the transfer latency timer publishes histogram buckets").contains("kvflow_transfer_latency_seconds_bucket{layout=\"shared\",pipeline=\"kvflow\",le=");
    }

    @Test
    void reportWritesBothChartsAsPngImages() throws Exception {
        Path report = dir.resolve("report");
        Cli.Result r = Cli.run("demo", "--cp", "2", "--requests", "6", "--max-len", "80", "--json", "--report", report.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode charts = new ObjectMapper().readTree(r.out()).get("charts");
        assertThat(charts).hasSize(2);
        for (String name : List.of(org.kvflow.samples.demo.DemoCharts.PAGES, org.kvflow.samples.demo.DemoCharts.CAPACITY)) {
            Path png = report.resolve(name);
            assertThat(charts.toString()).contains(png.toString());
            java.awt.image.BufferedImage image = javax.imageio.ImageIO.read(png.toFile());
            assertThat(image).as(name + " is a PNG image").isNotNull();
            assertThat(new int[] {image.getWidth(), image.getHeight()}).containsExactly(900, 500);
        }
    }

    @Test
    void anAbsentBackendIsRefusedBeforeAnythingRuns() {
        Cli.Result r = Cli.run("demo", "--backend", "cuda");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).as("no CUDA GPU on this machine").startsWith("kvflow: --backend: 1 problem: [device=cuda: no kernel device 'cuda': found [java");
        assertThat(r.err().lines()).as("one line, the driver named by the first line of its error: " + r.err()).singleElement().asString()
                .containsPattern("cuda: no CUDA driver \\([A-Za-z]+: [^)]*\\)");
        Cli.Result unknown = Cli.run("demo", "--backend", "tpu");
        assertThat(unknown.exit()).isEqualTo(2);
        assertThat(unknown.err().lines()).as(unknown.err()).hasSize(1);
        Cli.Result absent = Cli.run("demo", "--backend", "opencl:99");
        assertThat(absent.exit()).isEqualTo(2);
        assertThat(absent.err()).contains("device=opencl:99: no kernel device 'opencl:99': found [");
    }

    /** A demo refused after its temporary journal directory was made (a backend the build refuses, a port in use) leaves none behind. */
    @Test
    void aRefusedDemoLeavesNoTemporaryJournal() throws Exception {
        java.util.Set<Path> before = demoJournals();
        Cli.Result absent = Cli.run("demo", "--backend", "opencl:99");
        assertThat(absent.exit()).isEqualTo(2);
        assertThat(absent.err()).contains("device=opencl:99: no kernel device 'opencl:99': found [");
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            Cli.Result busy = Cli.run("demo", "--requests", "2", "--metrics-port", String.valueOf(taken.getLocalPort()));
            assertThat(busy.exit()).isEqualTo(2);
            assertThat(busy.err()).startsWith("kvflow: --metrics-port: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ");
        }
        java.util.Set<Path> after = demoJournals();
        after.removeAll(before);
        assertThat(after).as("temporary journals the refused runs left").isEmpty();
    }

    /**
     * Over ucx the page bytes go by one-sided puts into the decode child's pool and every check
     * passes; the child, killed at the end, leaves neither its folder nor the native library jucx
     * extracted into it.
     */
    @Test
    void demoOverUcxPassesEveryCheckAndItsDecodeChildLeavesNoFolder() throws Exception {
        java.util.Set<Path> before = tmpEntries("kvflow-decode-");
        Cli.Result r = Cli.run("demo", "--cp", "4", "--requests", "8", "--max-len", "100", "--json", "--transfer", "ucx");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode o = new ObjectMapper().readTree(r.out());
        assertThat(o.get("transfer").asText()).isEqualTo("ucx");
        assertThat(o.get("checksPassed").asInt()).isEqualTo(8);
        assertThat(o.get("transferBytes").asLong()).isPositive();
        assertThat(tmpEntries("kvflow-decode-")).isEqualTo(before);
    }

    private static java.util.Set<Path> demoJournals() throws java.io.IOException {
        return tmpEntries("kvflow-demo-journal");
    }

    private static java.util.Set<Path> tmpEntries(String prefix) throws java.io.IOException {
        try (java.util.stream.Stream<Path> list = java.nio.file.Files.list(Path.of(System.getProperty("java.io.tmpdir")))) {
            return list.filter(p -> p.getFileName().toString().startsWith(prefix)).collect(java.util.stream.Collectors.toSet());
        }
    }

    /** What a sample prints on standard output while it runs. */
    private static String stdoutOf(Runnable sample) {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.PrintStream original = System.out;
        System.setOut(new java.io.PrintStream(bytes, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            sample.run();
        } finally {
            System.setOut(original);
        }
        return bytes.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    @Test
    void samplesComposeStreamAndTheirResultsAreWhatTheySay() {
        String composed = stdoutOf(() -> org.kvflow.samples.ComposePipeline.main(new String[0]));
        assertThat(composed.lines().filter(l -> l.contains(" -> Completed") || l.contains(" -> Failed"))).containsExactly("hello -> Completed, decode ready: true",
                "short -> Completed, decode ready: true", "long -> Completed, decode ready: true");
        String streamed = stdoutOf(() -> org.kvflow.samples.StreamWithBackpressure.main(new String[0]));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("500 results; the source was asked for (\\d+) requests").matcher(streamed);
        assertThat(m.find()).as(streamed).isTrue();
        // backpressure: the endless source is asked for the 500 taken plus what the queue (16) and the stages in flight hold
        assertThat(Integer.parseInt(m.group(1))).isBetween(500, 600);
    }

    /** A run with failed requests names the first of them, each with its reason, under the count. */
    @Test
    void failedRequestsAreNamedWithTheirReasons() {
        org.kvflow.samples.demo.DemoReport report = new org.kvflow.samples.demo.DemoReport(8, 3, 1, 2,
                List.of("r1: DecodePoolFullException: no room", "r2: TransferFailedException: decode process gone"), 10, 1, 0.5, 1, 1, 4, 1.0,
                0, 0, "tcp", 1, 0, 0, 1, "java", new org.kvflow.samples.demo.PagesTimeline(), new org.kvflow.samples.demo.PagesTimeline());
        java.io.StringWriter text = new java.io.StringWriter();
        DemoCommand.printText(new java.io.PrintWriter(text), new org.kvflow.samples.demo.Demo(8, 3, 100, 1, "java",
                new io.micrometer.core.instrument.simple.SimpleMeterRegistry(), 1, false, "tcp"), report);
        assertThat(text.toString()).contains("  requests   1 completed, 2 failed\n  failed     r1: DecodePoolFullException: no room\n"
                + "  failed     r2: TransferFailedException: decode process gone\n  tokens");
    }
}
