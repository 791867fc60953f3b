package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

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

    @Test
    void defaultsPassWithoutAFile() {
        Cli.Result r = Cli.run("validate-config", "--json");
        assertThat(r.exit()).isZero();
        assertThat(r.out()).startsWith("{\"ok\":true,\"normalized\":{\"cpSize\":1,");
    }
}
