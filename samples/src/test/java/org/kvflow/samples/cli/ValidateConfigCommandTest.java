package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ValidateConfigCommandTest {
    @TempDir
    Path dir;

    @Test
    void validYamlPrintsTheNormalisedConfig() throws IOException {
        Path yaml = dir.resolve("ok.yaml");
        Files.writeString(yaml, "cpSize: 8\nsharedKv: true\nbsGt1: true\nmaxRequests: 4\nkvDtype: fp8_e4m3\n");
        Cli.Result r = Cli.run("validate-config", "--config", yaml.toString());
        assertThat(r.exit()).isZero();
        assertThat(r.err()).isEmpty();
        assertThat(r.out()).startsWith("config OK").contains("maxRequests: 4").contains("kvDtype: \"fp8_e4m3\"");
    }

    @Test
    void everyErrorIsListedWithItsCodeAndExitTwo() throws IOException {
        Path json = dir.resolve("bad.json");
        Files.writeString(json, "{\"cpSize\":1,\"sharedKv\":true,\"split\":\"round-robin-split\",\"chunkedPrefillSize\":16}");
        Cli.Result r = Cli.run("validate-config", "--config", json.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out().lines()).hasSize(4).first().asString().isEqualTo("config rejected: 3 startup check(s) failed");
        assertThat(r.out().lines().skip(1).map(l -> l.substring(0, l.indexOf(':'))))
                .containsExactly("E-CP-1", "E-CP-3", "E-ADM-3");
    }

    @Test
    void jsonFormIsTheConfigScenarioAnswer() {
        Cli.Result r = Cli.run("validate-config", "--json", "--cp", "8", "--shared-kv", "--enable-hierarchical-cache",
                "--hicache-storage-backend", "hf3fs");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).startsWith("{\"ok\":false,\"errors\":[{\"code\":\"E-HC-4\"");
    }

    @Test
    void flagsOverrideTheFile() throws IOException {
        Path yaml = dir.resolve("base.yaml");
        Files.writeString(yaml, "cpSize: 8\nsharedKv: true\nsplit: round-robin-split\n");
        assertThat(Cli.run("validate-config", "--config", yaml.toString()).exit()).isEqualTo(2);
        Cli.Result r = Cli.run("validate-config", "--json", "--config", yaml.toString(), "--split", "in-seq-split",
                "--chunked-prefill-size", "-1", "--shared-kv=false");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).contains("\"split\":\"in-seq-split\"").contains("\"chunkedPrefillSize\":null")
                .contains("\"sharedKv\":false");
    }

    /** Every override flag lands in its own field: a valid set read back from the normalised config, and the four the checks refuse named in their errors. */
    @Test
    void everyFlagReachesTheConfig() throws IOException {
        Cli.Result ok = Cli.run("validate-config", "--json", "--cp", "4", "--page-size", "64", "--split", "in-seq-split", "--shared-kv",
                "--enable-cp-shared-kv-prefill-bs-gt1", "--cp-shared-kv-prefill-max-requests", "6", "--cp-shared-kv-prefill-max-extend-tokens", "8192",
                "--prefill-max-requests", "5", "--chunked-prefill-size", "256", "--max-prefill-tokens", "7000", "--kv-cache-dtype", "fp8_e4m3",
                "--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "tcp", "--model-kind", "nsa-mla", "--device-pool-tokens", "65536",
                "--enable-hierarchical-cache", "--hicache-storage-backend", "file", "--hicache-io-backend", "direct", "--hicache-write-policy", "write_back",
                "--hicache-host-pool-tokens", "131072");
        assertThat(ok.exit()).as(ok.out()).isZero();
        ObjectMapper json = new ObjectMapper();
        JsonNode config = json.readTree(ok.out()).get("normalized");
        assertThat(config.toString()).isEqualTo("{\"cpSize\":4,\"pageSize\":64,\"split\":\"in-seq-split\",\"sharedKv\":true,\"bsGt1\":true,"
                + "\"allCpRanksTransfer\":true,\"hisparse\":false,\"cpRanksSameNode\":true,\"maxRequests\":6,\"maxExtendTokens\":8192,"
                + "\"prefillMaxRequests\":5,\"chunkedPrefillSize\":256,\"maxPrefillTokens\":7000,\"kvDtype\":\"fp8_e4m3\","
                + "\"disaggregationMode\":\"prefill\",\"transferBackend\":\"tcp\",\"model\":\"nsa-mla\",\"devicePoolTokens\":65536,"
                + "\"hicache\":{\"enabled\":true,\"storageBackend\":\"file\",\"layout\":\"page_first\",\"ioBackend\":\"direct\","
                + "\"writePolicy\":\"write_back\",\"hostPoolTokens\":131072}}");
        Cli.Result refused = Cli.run("validate-config", "--json", "--cp", "4", "--shared-kv", "--hisparse", "--cp-ranks-same-node=false",
                "--all-cp-ranks-transfer=false", "--disaggregation-mode", "prefill", "--enable-hierarchical-cache", "--hicache-storage-backend", "file",
                "--hicache-mem-layout", "layer_first", "--hicache-io-backend", "direct");
        assertThat(refused.exit()).isEqualTo(2);
        assertThat(json.readTree(refused.out()).get("errors").findValuesAsText("code"))
                .containsExactly("E-CP-5", "E-CP-6", "E-PD-2", "E-HC-3");
    }

    @Test
    void defaultsPassWithoutAFile() {
        Cli.Result r = Cli.run("validate-config", "--json");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).startsWith("{\"ok\":true,\"normalized\":{\"cpSize\":1,");
    }
}
