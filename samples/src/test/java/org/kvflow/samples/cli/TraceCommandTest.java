package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kvflow trace}: a small trace through both layouts as JSON, and a bad trace refused in one line naming its line. */
class TraceCommandTest {
    /** The committed H200 cost model. */
    private static final Path H200 = Path.of("../traffic/cost-models/h200-v32-attention.json");

    @TempDir
    Path dir;

    /** Two prompts that share their first two blocks (1,024 tokens): 1,500 and 1,100 tokens. */
    private Path twoPrompts() throws java.io.IOException {
        return Files.write(dir.resolve("t.jsonl"), List.of(
                "{\"timestamp\": 0, \"input_length\": 1500, \"output_length\": 3, \"hash_ids\": [1, 2, 3]}",
                "{\"timestamp\": 10, \"input_length\": 1100, \"output_length\": 3, \"hash_ids\": [1, 2, 4]}"));
    }

    @Test
    void aTraceReplaysThroughBothLayoutsAndReportsHitsAgainstTheIdeal() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.write(trace, List.of(
                "{\"timestamp\": 0, \"input_length\": 1500, \"output_length\": 3, \"hash_ids\": [1, 2, 3]}",
                "{\"timestamp\": 10, \"input_length\": 1100, \"output_length\": 3, \"hash_ids\": [1, 2, 4]}",
                "{\"timestamp\": 20, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [9, 5]}"));
        Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "4096", "--max-batch", "1", "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("requests").asInt()).isEqualTo(3);
        assertThat(doc.get("inputTokens").asLong()).isEqualTo(3_200);
        assertThat(doc.get("idealHitRatio").asDouble()).as("the second prompt's first two blocks").isEqualTo(1024.0 / 3200);
        assertThat(doc.get("shared").get("hitTokens").asLong()).as("two blocks, in whole pages").isEqualTo(1024);
        assertThat(doc.get("shared").get("completed").asInt()).isEqualTo(3);
        assertThat(doc.get("replicated").get("hitTokens").asLong()).isEqualTo(1024);
    }

    @Test
    void withAModelTheReplayMovesRealKvBytesAndHitsAsPlanningPagesOnlyDoes() throws Exception {
        Path trace = twoPrompts();
        String[] common = {"trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "4096", "--max-batch", "1", "--json"};
        Cli.Result pagesOnly = Cli.run(common);
        Cli.Result bytes = Cli.run(java.util.stream.Stream.concat(java.util.Arrays.stream(common), java.util.stream.Stream.of("--model", "synthetic"))
                .toArray(String[]::new));
        assertThat(bytes.exit()).as(bytes.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(bytes.out());
        assertThat(doc.get("kvBytes").get("model").asText()).isEqualTo("synthetic-nsa seed 7");
        assertThat(doc.get("kvBytes").get("device").asText()).isEqualTo("java");
        JsonNode planned = new ObjectMapper().readTree(pagesOnly.out());
        assertThat(planned.has("kvBytes")).isFalse();
        for (String layout : List.of("shared", "replicated")) {
            assertThat(doc.get(layout).get("hitTokens").asLong()).as(layout).isEqualTo(planned.get(layout).get("hitTokens").asLong()).isEqualTo(1024);
            assertThat(doc.get(layout).get("completed").asInt()).isEqualTo(2);
        }
    }

    @Test
    void withAJournalARestartStartsWarmFromWhatTheRunBeforeItJournaled() throws Exception {
        Path trace = twoPrompts();
        Path journal = dir.resolve("journal");
        Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "4096", "--max-batch", "1", "--json",
                "--model", "synthetic", "--journal", journal.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("restartAfter").asInt()).as("half the requests by default").isEqualTo(1);
        for (String layout : List.of("shared", "replicated")) {
            assertThat(doc.get(layout).get("warmStartTokens").asLong()).as("%s: the first prompt's full pages", layout).isEqualTo(1_472);
            assertThat(doc.get(layout).get("hitTokens").asLong()).as("%s: the second prompt's shared blocks, from the journal", layout).isEqualTo(1_024);
            assertThat(Files.isDirectory(journal.resolve(layout))).isTrue();
        }
        Cli.Result cold = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "4096", "--max-batch", "1", "--json",
                "--restart-after", "1");
        assertThat(cold.exit()).as(cold.err()).isZero();
        assertThat(new ObjectMapper().readTree(cold.out()).get("shared").get("hitTokens").asLong()).as("a cold restart forgets").isZero();
        Cli.Result again = Cli.run("trace", "--file", trace.toString(), "--model", "synthetic", "--journal", journal.toString());
        assertThat(again.exit()).isEqualTo(2);
        assertThat(again.err().strip()).isEqualTo("kvflow: --journal: " + journal + " is not a new or empty directory");
        Cli.Result noModel = Cli.run("trace", "--file", trace.toString(), "--journal", dir.resolve("j2").toString());
        assertThat(noModel.err().strip()).isEqualTo("kvflow: --journal: a journal holds KV bytes: give --model too");
        Cli.Result zero = Cli.run("trace", "--file", trace.toString(), "--restart-after", "0");
        assertThat(zero.err().strip()).isEqualTo("kvflow: --restart-after: must be in [1, 2147483647], was 0");
    }

    @Test
    void whatCannotMoveKvBytesIsRefusedNamingTheFlag() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.write(trace, List.of("{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 3, \"hash_ids\": [1]}"));
        for (String[] bad : List.of(
                new String[] {"--backend", "cuda", "kvflow: --backend: picks where KV bytes are computed: give --model too"},
                new String[] {"--model", "llama", "kvflow: --model: synthetic, not llama"},
                new String[] {"--model", "synthetic --host-bytes 1GB", "kvflow: --host-bytes: the host tier plans pages only: with --model, drop it"},
                new String[] {"--model", "synthetic --page-size 32", "kvflow: --page-size: with --model pages hold 64 tokens, the model's; was 32"},
                new String[] {"--model", "synthetic --simulate-cluster --cost-model " + H200,
                        "kvflow: --simulate-cluster: its instances plan pages only: drop --model"})) {
            List<String> args = new java.util.ArrayList<>(List.of("trace", "--file", trace.toString(), bad[0]));
            args.addAll(List.of(bad[1].split(" ")));
            Cli.Result r = Cli.run(args.toArray(String[]::new));
            assertThat(r.exit()).as(bad[1]).isEqualTo(2);
            assertThat(r.out()).isEmpty();
            assertThat(r.err().strip()).isEqualTo(bad[2]);
        }
    }

    @Test
    void aCostModelAddsEachLayoutsModelledTimeToFirstToken() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.write(trace, List.of(
                "{\"timestamp\": 0, \"input_length\": 9000, \"output_length\": 3, \"hash_ids\": [" + ids(1, 18) + "]}",
                "{\"timestamp\": 5, \"input_length\": 9000, \"output_length\": 3, \"hash_ids\": [" + ids(1, 18) + "]}"));
        Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "65536", "--max-batch", "1", "--json",
                "--cost-model", H200.toString());
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("costModel").asText()).isEqualTo("h200-v32-attention");
        for (String layout : List.of("shared", "replicated")) {
            JsonNode l = doc.get(layout);
            assertThat(l.get("ttftMaxS").asDouble()).as(layout + ": the second request waits behind the first")
                    .isGreaterThan(l.get("prefillP99S").asDouble()).isGreaterThan(0);
            assertThat(l.get("prefillP50S").asDouble()).as(layout + ": the hit request's prefill is the shorter").isLessThan(l.get("prefillP99S").asDouble());
        }
        Path report = dir.resolve("charts");
        Cli.Result text = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--cost-model", H200.toString(), "--report", report.toString());
        assertThat(text.exit()).as(text.err()).isZero();
        assertThat(text.out()).contains("modelled (h200-v32-attention, arrivals at 1.0x the trace's pace): TTFT p50");
        for (String chart : List.of("trace-pools.png", "trace-hit-ratio.png", "trace-ttft-cdf.png")) {
            Path png = report.resolve(chart);
            assertThat(javax.imageio.ImageIO.read(png.toFile())).as(chart).isNotNull().satisfies(i -> assertThat(i.getWidth()).isEqualTo(900));
            assertThat(text.out()).contains(png.toString());
        }
    }

    @Test
    void aBadCostModelIsRefusedInOneLineNamingTheFileAndField() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.write(trace, List.of("{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 3, \"hash_ids\": [1]}"));
        Path model = dir.resolve("m.json");
        Files.writeString(model, Files.readString(H200).replace("\"layers\": 61", "\"layers\": 0"));
        Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--cost-model", model.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("kvflow: " + model + " $.layers: must be >= 1, was 0");
        Cli.Result none = Cli.run("trace", "--file", trace.toString(), "--cost-model", dir.resolve("none.json").toString());
        assertThat(none.exit()).isEqualTo(2);
        assertThat(none.err().strip()).isEqualTo("kvflow: --cost-model: " + dir.resolve("none.json") + " is not a readable file");
    }

    @Test
    void aSimulatedClusterReportsEachLoadBothLayoutsAndTheGpusSharedKvSaves() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        List<String> lines = new java.util.ArrayList<>();
        for (int i = 0; i < 12; i++) { // six prompts, each twice, 0.2 s apart
            lines.add("{\"timestamp\": " + 200 * i + ", \"input_length\": 4096, \"output_length\": 3, \"hash_ids\": [" + ids(10 * (i % 6), 10 * (i % 6) + 7)
                    + "]}");
        }
        Files.write(trace, lines);
        Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "8192", "--cost-model", H200.toString(),
                "--simulate-cluster", "--instances", "2", "--loads", "1,4", "--slo-s", "5", "--max-instances", "8", "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("router").asText()).isEqualTo("prefix-aware");
        assertThat(doc.get("loads")).hasSize(2);
        for (JsonNode load : doc.get("loads")) {
            for (String layout : List.of("shared", "replicated")) {
                JsonNode l = load.get(layout);
                assertThat(l.get("served").asInt() + l.get("refused").asInt()).isEqualTo(12);
                assertThat(l.get("requestsPerInstance")).hasSize(2);
                assertThat(l.get("instancesForSlo").isInt()).as(layout + " at " + load.get("load")).isTrue();
            }
            assertThat(load.get("prefillGpusSaved").asInt()).isEqualTo(
                    2 * (load.get("replicated").get("instancesForSlo").asInt() - load.get("shared").get("instancesForSlo").asInt()));
        }
        JsonNode fast = doc.get("loads").get(1);
        assertThat(fast.get("shared").get("ttftP99S").asDouble()).as("four times the load, longer queues")
                .isGreaterThanOrEqualTo(doc.get("loads").get(0).get("shared").get("ttftP99S").asDouble());
    }

    @Test
    void clusterFlagsAreRefusedWithoutTheSimulationAndTheSimulationWithoutACostModel() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.write(trace, List.of("{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 3, \"hash_ids\": [1]}"));
        Cli.Result stray = Cli.run("trace", "--file", trace.toString(), "--instances", "3");
        assertThat(stray.exit()).isEqualTo(2);
        assertThat(stray.err().strip()).isEqualTo("kvflow: --instances: is a flag of --simulate-cluster, which was not given");
        Cli.Result bare = Cli.run("trace", "--file", trace.toString(), "--simulate-cluster");
        assertThat(bare.exit()).isEqualTo(2);
        assertThat(bare.err().strip()).isEqualTo("kvflow: --simulate-cluster: needs --cost-model FILE: the simulation runs on modelled time");
        Cli.Result router = Cli.run("trace", "--file", trace.toString(), "--simulate-cluster", "--cost-model", H200.toString(), "--router", "random");
        assertThat(router.exit()).isEqualTo(2);
        assertThat(router.err().strip()).isEqualTo("kvflow: --router: router \"random\" is not one of [round-robin, least-loaded, prefix-aware]");
        Cli.Result slo = Cli.run("trace", "--file", trace.toString(), "--simulate-cluster", "--cost-model", H200.toString(), "--slo-attainment", "2");
        assertThat(slo.exit()).isEqualTo(2);
        assertThat(slo.err().strip()).isEqualTo("kvflow: --slo-attainment: must be in (0, 1], was 2.0");
        for (String[] bad : List.of(new String[] {"--pd-gbps", "-1", "kvflow: --pd-gbps: must be in [0, 1e6], was -1.0"},
                new String[] {"--slo-s", "0", "kvflow: --slo-s: must be in (0, 1e9], was 0.0"},
                new String[] {"--loads", "1,-4", "kvflow: --loads: each must be in (0, 1e6], was -4.0"},
                new String[] {"--instances", "0", "kvflow: --instances: must be in [1, 4096], was 0"})) {
            Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--simulate-cluster", "--cost-model", H200.toString(), bad[0], bad[1]);
            assertThat(r.exit()).as(bad[0]).isEqualTo(2);
            assertThat(r.err().strip()).isEqualTo(bad[2]);
        }
    }

    @Test
    void aByteBudgetGivesEachRankTheWholePagesOfV32KvItHolds() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.write(trace, List.of("{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 3, \"hash_ids\": [1]}"));
        long perPage = 48_068L * 64; // DeepSeek V3.2 fp8 KV, 61 layers, a page of 64 tokens
        Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--budget-bytes", Long.toString(100 * perPage + 5), "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(new ObjectMapper().readTree(r.out()).get("poolTokensPerRank").asLong()).isEqualTo(100 * 64);
        Cli.Result both = Cli.run("trace", "--file", trace.toString(), "--budget-bytes", "1000000000", "--pool-tokens", "4096");
        assertThat(both.exit()).isEqualTo(2);
        assertThat(both.err().strip()).isEqualTo("kvflow: --budget-bytes: give it or --pool-tokens, not both");
        Cli.Result small = Cli.run("trace", "--file", trace.toString(), "--budget-bytes", "1000");
        assertThat(small.exit()).isEqualTo(2);
        assertThat(small.err().strip()).isEqualTo("kvflow: --budget-bytes: must be in [" + perPage + ", " + perPage * Integer.MAX_VALUE + "], was 1000");
    }

    @Test
    void aHostTierReportsTheTokensItServedBesideTheDeviceCache() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        List<String> lines = new java.util.ArrayList<>();
        lines.add("{\"timestamp\": 0, \"input_length\": 1024, \"output_length\": 3, \"hash_ids\": [1, 2]}");
        for (int i = 1; i <= 6; i++) { // others that push the first out of a 4,096-token device cache
            lines.add("{\"timestamp\": " + i + ", \"input_length\": 1024, \"output_length\": 3, \"hash_ids\": [" + (10 * i) + ", " + (10 * i + 1) + "]}");
        }
        lines.add("{\"timestamp\": 9, \"input_length\": 1024, \"output_length\": 3, \"hash_ids\": [1, 2]}");
        Files.write(trace, lines);
        String hundredPages = Long.toString(100L * 48_068 * 64);
        Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "2048", "--max-batch", "1", "--host-bytes",
                hundredPages, "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("hostTierTokens").asLong()).isEqualTo(6_400);
        JsonNode shared = doc.get("shared");
        assertThat(shared.get("hostHitTokens").asLong()).as("the first prompt's pages, back from the host tier").isEqualTo(1_024 - 64);
        assertThat(shared.get("hitTokens").asLong()).isEqualTo(shared.get("deviceHitTokens").asLong() + shared.get("hostHitTokens").asLong());
        Cli.Result text = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "2048", "--max-batch", "1", "--host-bytes",
                hundredPages);
        assertThat(text.out()).contains("960 from the host tier");
        JsonNode fast = new ObjectMapper().readTree(Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "2048", "--max-batch",
                "1", "--host-bytes", hundredPages, "--cost-model", H200.toString(), "--host-gbps", "1000", "--json").out());
        JsonNode slow = new ObjectMapper().readTree(Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "2048", "--max-batch",
                "1", "--host-bytes", hundredPages, "--cost-model", H200.toString(), "--host-gbps", "0.001", "--json").out());
        assertThat(slow.get("shared").get("prefillP99S").asDouble()).as("loading 960 tokens over 1 MB/s dominates")
                .isGreaterThan(10).isGreaterThan(fast.get("shared").get("prefillP99S").asDouble());
        Cli.Result noModel = Cli.run("trace", "--file", trace.toString(), "--host-gbps", "10");
        assertThat(noModel.exit()).isEqualTo(2);
        assertThat(noModel.err().strip()).isEqualTo("kvflow: --host-gbps: prices host loads in the cost model: give --cost-model too");
        Cli.Result negative = Cli.run("trace", "--file", trace.toString(), "--host-bytes", "-1");
        assertThat(negative.exit()).isEqualTo(2);
        assertThat(negative.err().strip()).isEqualTo("kvflow: --host-bytes: must be in [0, " + 48_068L * 64 * Integer.MAX_VALUE + "], was -1");
        Cli.Result link = Cli.run("trace", "--file", trace.toString(), "--cost-model", H200.toString(), "--host-gbps", "0");
        assertThat(link.exit()).isEqualTo(2);
        assertThat(link.err().strip()).isEqualTo("kvflow: --host-gbps: must be in (0, 1e6], was 0.0");
    }

    private static String ids(int from, int to) {
        return java.util.stream.IntStream.rangeClosed(from, to).mapToObj(Integer::toString).collect(java.util.stream.Collectors.joining(", "));
    }

    @Test
    void skipAndHeadCutAStretchOutOfTheTraceAndItsClockStartsAtTheStretch() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.write(trace, List.of(
                "{\"timestamp\": 0, \"input_length\": 1500, \"output_length\": 3, \"hash_ids\": [1, 2, 3]}",
                "{\"timestamp\": 10, \"input_length\": 1100, \"output_length\": 3, \"hash_ids\": [1, 2, 4]}",
                "{\"timestamp\": 20, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [1, 7]}",
                "{\"timestamp\": 30, \"input_length\": 600, \"output_length\": 3, \"hash_ids\": [9, 5]}"));
        Cli.Result r = Cli.run("trace", "--file", trace.toString(), "--cp", "2", "--pool-tokens", "4096", "--max-batch", "1",
                "--skip", "1", "--head", "2", "--json");
        assertThat(r.exit()).as(r.err()).isZero();
        JsonNode doc = new ObjectMapper().readTree(r.out());
        assertThat(doc.get("requests").asInt()).as("the second and third lines").isEqualTo(2);
        assertThat(doc.get("inputTokens").asLong()).isEqualTo(1_700);
        assertThat(doc.get("idealHitRatio").asDouble()).as("the third prompt's first block, seen in the second").isEqualTo(512.0 / 1700);
        assertThat(doc.get("shared").get("hitTokens").asLong()).isEqualTo(512);
        Cli.Result past = Cli.run("trace", "--file", trace.toString(), "--skip", "4");
        assertThat(past.exit()).isEqualTo(2);
        assertThat(past.err().strip()).isEqualTo("kvflow: --skip: must be in [0, 3], was 4");
    }

    @Test
    void aBadTraceIsRefusedInOneLineNamingTheLine() throws Exception {
        Path trace = dir.resolve("bad.jsonl");
        Files.write(trace, List.of("{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 3, \"hash_ids\": [1]}",
                "{\"timestamp\": 0, \"input_length\": 100, \"output_length\": 3, \"hash_ids\": [1, 2]}"));
        Cli.Result r = Cli.run("trace", "--file", trace.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("kvflow: " + trace + ":2: 2 hash ids for input_length 100 (1 blocks of 512)");
        Cli.Result slow = Cli.run("trace", "--file", trace.toString(), "--pace", "slow");
        assertThat(slow.exit()).isEqualTo(2);
        assertThat(slow.err().strip()).isEqualTo("kvflow: --pace: must be max or trace, was \"slow\"");
        Cli.Result still = Cli.run("trace", "--file", trace.toString(), "--pace", "trace", "--speed", "0");
        assertThat(still.exit()).isEqualTo(2);
        assertThat(still.err().strip()).isEqualTo("kvflow: --speed: must be in (0, 1e6], was 0.0");
        Cli.Result batch = Cli.run("trace", "--file", trace.toString(), "--max-batch", "0");
        assertThat(batch.exit()).isEqualTo(2);
        assertThat(batch.err().strip()).isEqualTo("kvflow: --max-batch: must be in [1, 4096], was 0");
        Cli.Result missing = Cli.run("trace", "--file", dir.resolve("none.jsonl").toString());
        assertThat(missing.exit()).isEqualTo(2);
        assertThat(missing.err().strip()).isEqualTo("kvflow: --file: " + dir.resolve("none.jsonl") + " is not a readable file");
    }
}
