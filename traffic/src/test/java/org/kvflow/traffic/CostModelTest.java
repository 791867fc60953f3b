package org.kvflow.traffic;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.json.MalformedInputException;

/** The cost model's arithmetic by hand, its file read strictly, the committed calibration against what it came from, and the modelled queue. */
class CostModelTest {
    /** The committed calibration (H200, kvflow's own attention step). */
    static final Path H200 = Path.of("cost-models/h200-v32-attention.json");

    private static final CostModel SMALL = new CostModel("small", 2, 4, 1, 0.5, 0.25, 0.125, 10, 0.75);

    @TempDir
    Path dir;

    @Test
    void aRequestCostsItsUncachedChunksEachByItsNewTokensAndTheKeysSoFar() {
        // 10 tokens, 3 hit, chunks of 4 from position 3: [3, 7) with keys to 7, then [7, 10) with keys to 10; cp 2, 2 layers
        // shared:     2 · (4/2 · (1 + 0.5·7) + 0.25·7) + 10 = 31.5  and  2 · (3/2 · (1 + 0.5·10) + 0.25·10) + 10 = 33
        assertThat(SMALL.prefillSeconds(10, 3, 2, true)).isCloseTo(64.5, within(1e-12));
        // replicated: 2 · (9 + 0.125·4) + 10 = 29  and  2 · (9 + 0.125·3) + 10 = 28.75
        assertThat(SMALL.prefillSeconds(10, 3, 2, false)).isCloseTo(57.75, within(1e-12));
        // every token hit: the last is computed, one token with keys to 10: 2 · (0.5 · 6 + 2.5) + 10
        assertThat(SMALL.prefillSeconds(10, 10, 2, true)).isCloseTo(21, within(1e-12));
        assertThat(SMALL.prefillSeconds(10, 0, 1, true)).as("more hits, less time").isGreaterThan(SMALL.prefillSeconds(10, 4, 1, true));
        // 3 from the device, 4 loaded from the host at 0.75 a token, then [7, 10): shared loads on 2 ranks at once, replicated on each
        assertThat(SMALL.prefillSeconds(10, 3, 4, 2, true)).isCloseTo(33 + 4 * 0.75 / 2, within(1e-12));
        assertThat(SMALL.prefillSeconds(10, 3, 4, 2, false)).isCloseTo(28.75 + 4 * 0.75, within(1e-12));
    }

    @Test
    void theCommittedCalibrationGivesBackTheMeasurementsItWasFittedTo() {
        CostModel h200 = CostModel.read(H200);
        assertThat(h200.layers()).isEqualTo(61);
        // the record it came from: one layer, one device, 131,072 tokens in 16 chunks of 8,192, attention step
        // 2,051.26 ms in all and 152.496 ms for the last chunk; the last chunk's full-view gather 0.321 ms
        CostModel oneLayer = new CostModel("one layer", 1, h200.chunkTokens(), h200.secondsPerToken(), h200.secondsPerTokenPerContextToken(), 0, 0, 0, 0);
        assertThat(oneLayer.prefillSeconds(131_072, 0, 1, true)).isCloseTo(2.05126, within(0.002));
        assertThat(oneLayer.prefillSeconds(131_072, 122_880, 1, true)).isCloseTo(0.152496, within(0.0002));
        assertThat(h200.sharedSecondsPerContextToken() * 131_072).isCloseTo(0.000321, within(1e-6));
    }

    @Test
    void aHostLinkOfAGivenSpeedPricesEachLoadedToken() {
        CostModel h200 = CostModel.read(H200);
        assertThat(h200.withHostLink(48_068, 55e9).hostSecondsPerToken()).as("the committed figure: V3.2 fp8 over 55 GB/s")
                .isCloseTo(h200.hostSecondsPerToken(), within(1e-9));
        assertThatThrownBy(() -> h200.withHostLink(48_068, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("host link 0.0 B/s must be a finite number > 0");
    }

    @Test
    void theFasterKernelsCalibrationGivesBackItsRecord() throws IOException {
        CostModel b512 = CostModel.read(Path.of("cost-models/h200-v32-attention-b512.json"));
        com.fasterxml.jackson.databind.JsonNode record = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(Path.of("../bench/results/cost-model.json").toFile()).get("figures");
        CostModel oneLayer = new CostModel("one layer", 1, b512.chunkTokens(), b512.secondsPerToken(), b512.secondsPerTokenPerContextToken(), 0, 0, 0, 0);
        assertThat(oneLayer.prefillSeconds(131_072, 0, 1, true)).isCloseTo(record.get("attention_total_ms_b512").asDouble() / 1e3, within(0.001));
        assertThat(oneLayer.prefillSeconds(131_072, 122_880, 1, true))
                .isCloseTo(record.get("attention_last_chunk_ms_b512").asDouble() / 1e3, within(0.0001));
        assertThat(b512.prefillSeconds(131_072, 0, 8, true)).as("faster than the committed default's kernels")
                .isLessThan(CostModel.read(H200).prefillSeconds(131_072, 0, 8, true) / 2);
    }

    @Test
    void aFileIsReadStrictlyAndEachBadFieldIsNamedWithTheFile() throws IOException {
        Path f = dir.resolve("m.json");
        Files.writeString(f, Files.readString(H200).replace("\"secondsPerChunk\": 0", "\"secondsPerChunk\": 0, \"secondsPerTokn\": 1"));
        assertThatThrownBy(() -> CostModel.read(f)).isInstanceOf(MalformedInputException.class).hasMessage(f + " $.secondsPerTokn: unknown field");
        Files.writeString(f, Files.readString(H200).replace("\"secondsPerToken\": 1.2289e-5", "\"secondsPerToken\": -1"));
        assertThatThrownBy(() -> CostModel.read(f)).isInstanceOf(MalformedInputException.class).hasMessage(f + " $.secondsPerToken: must be >= 0.0, was -1");
        Files.writeString(f, Files.readString(H200).replace("\"layers\": 61,", ""));
        assertThatThrownBy(() -> CostModel.read(f)).isInstanceOf(MalformedInputException.class).hasMessage(f + " $.layers: required field is missing");
        Files.writeString(f, Files.readString(H200).replace("\"chunkTokens\": 8192", "\"chunkTokens\": \"8k\""));
        assertThatThrownBy(() -> CostModel.read(f)).isInstanceOf(MalformedInputException.class)
                .hasMessage(f + " $.chunkTokens: must be an integer, was string \"8k\"");
        Files.writeString(f, "layers: 61");
        assertThatThrownBy(() -> CostModel.read(f)).isInstanceOf(MalformedInputException.class).hasMessageStartingWith(f + " $: invalid JSON at line 1");
        assertThatThrownBy(() -> new CostModel("x", 0, 1, 0, 0, 0, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("layers 0 and chunkTokens 1 must be >= 1");
        assertThatThrownBy(() -> new CostModel("x", 1, 1, 0, 0, Double.NaN, 0, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost model x: every cost must be finite and >= 0, one was NaN");
        assertThatThrownBy(() -> new CostModel("x", 1, 1, 0, 0, 0, 0, -0.5, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("cost model x: every cost must be finite and >= 0, one was -0.5");
        assertThatThrownBy(() -> SMALL.prefillSeconds(0, 0, 2, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("seqLen 0 and cp 2 must be >= 1, hitTokens 0 and hostTokens 0 >= 0");
        assertThatThrownBy(() -> SMALL.prefillSeconds(10, 0, -1, 2, true)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("seqLen 10 and cp 2 must be >= 1, hitTokens 0 and hostTokens -1 >= 0");
        assertThatThrownBy(() -> new ModelledInstance(SMALL, 0, true)).isInstanceOf(IllegalArgumentException.class).hasMessage("cp 0 must be >= 1");
        assertThatThrownBy(() -> new TtftModel(SMALL, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("modelled arrival speed 0.0 must be a finite number > 0");
    }

    @Test
    void anInstanceServesInArrivalOrderAndALaterRequestWaitsForEarlierOnes() {
        ModelledInstance instance = new ModelledInstance(SMALL, 2, true);
        assertThat(instance.serve(0, 10, 3, 0)).isCloseTo(64.5, within(1e-12));
        assertThat(instance.serve(0, 10, 3, 0)).as("behind the first").isCloseTo(129, within(1e-12));
        assertThat(instance.serve(1_000, 10, 3, 0)).as("the instance idle again").isCloseTo(64.5, within(1e-12));
        ModelledTtft report = instance.report();
        assertThat(report.ttft().max()).isCloseTo(129, within(1e-12));
        assertThat(report.prefill().max()).isCloseTo(64.5, within(1e-12));
        assertThat(report.endSeconds()).isCloseTo(1_064.5, within(1e-9));
        assertThatThrownBy(() -> instance.serve(999, 10, 3, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("arrival 999.0 s is before the previous request's 1000.0 s");
    }

    @Test
    void aReplayModelsEachServedRequestWithTheHitsItGot() {
        // the same prompt twice at time 0, one request a batch: the second hits the first's pages
        List<TraceRequest> trace = List.of(new TraceRequest(1, 0, 1_500, 1, new long[] {1, 2, 3}),
                new TraceRequest(2, 0, 1_500, 1, new long[] {1, 2, 3}));
        CostModel costs = CostModel.read(H200);
        LayoutReport r = new TraceReplay(2, 64, 1_024, 1).replay(trace, true, 0, new TtftModel(costs, 1));
        assertThat(r.hitTokens()).as("the second request's hits").isPositive();
        double first = costs.prefillSeconds(1_500, 0, 2, true);
        double second = costs.prefillSeconds(1_500, (int) r.hitTokens(), 2, true);
        assertThat(second).isLessThan(first);
        ModelledTtft m = r.modelled();
        assertThat(m).isNotNull();
        assertThat(m.costModel()).isEqualTo("h200-v32-attention");
        assertThat(m.ttft().count()).isEqualTo(2);
        assertThat(m.ttft().max()).as("the second waits for the first").isCloseTo(first + second, within(1e-12));
        assertThat(m.prefill().max()).isCloseTo(first, within(1e-12));
        assertThat(new TraceReplay(2, 64, 1_024, 1).replay(trace, true).modelled()).as("no model, no modelled times").isNull();
    }
}
