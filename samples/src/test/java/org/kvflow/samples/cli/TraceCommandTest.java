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
    @TempDir
    Path dir;

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
