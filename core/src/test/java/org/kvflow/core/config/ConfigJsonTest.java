package org.kvflow.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.json.JsonDocuments;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.split.SplitMode;

class ConfigJsonTest {
    private static CpSharedKvConfig read(String json) {
        return ConfigJson.read(JsonDocuments.parseJson(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8))), "$.config");
    }

    private static void malformed(String json, String message) {
        assertThatThrownBy(() -> read(json)).isInstanceOf(MalformedInputException.class).hasMessage(message);
    }

    @Test
    void emptyObjectIsTheDefaults() {
        assertThat(read("{}")).isEqualTo(CpSharedKvConfig.DEFAULTS);
    }

    @Test
    void fieldsAreReadWithTheirWireNames() {
        CpSharedKvConfig c = read("""
                {"cpSize":8,"split":"round-robin-split","sharedKv":true,"kvDtype":"fp8_e4m3","maxRequests":null,
                 "chunkedPrefillSize":null,"hicache":{"enabled":true,"hostPoolTokens":5}}""");
        assertThat(c.cpSize()).isEqualTo(8);
        assertThat(c.split()).isEqualTo(SplitMode.ROUND_ROBIN_SPLIT);
        assertThat(c.kvDtype()).isEqualTo(KvDtype.FP8_E4M3);
        assertThat(c.chunkedPrefillSize()).isNull();
        assertThat(c.hicache().hostPoolTokens()).isEqualTo(5L);
    }

    @Test
    void writeGivesEveryFieldAndReadsBackEqual() {
        CpSharedKvConfig c = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).maxRequests(3L).chunkedPrefillSize(null).build();
        JsonNode written = ConfigJson.write(c);
        assertThat(written.size()).isEqualTo(19);
        assertThat(written.get("chunkedPrefillSize").isNull()).isTrue();
        assertThat(written.get("hicache").size()).isEqualTo(6);
        assertThat(ConfigJson.read(written, "$")).isEqualTo(c);
    }

    @Test
    void malformedFieldsAreNamedByPath() {
        malformed("{\"cpSize\":0}", "$.config.cpSize: must be >= 1, was 0");
        malformed("{\"pageSize\":\"64\"}", "$.config.pageSize: must be an integer, was string \"64\"");
        malformed("{\"pageSize\":64.0}", "$.config.pageSize: must be an integer, was number 64.0");
        malformed("{\"pageSize\":1e2}", "$.config.pageSize: must be an integer, was number 100.0");
        malformed("{\"cpSize\":4294967296}", "$.config.cpSize: must be <= 2147483647, was 4294967296");
        malformed("{\"maxPrefillTokens\":-1}", "$.config.maxPrefillTokens: must be >= 0, was -1");
        malformed("{\"sharedKv\":null}", "$.config.sharedKv: must not be null");
        malformed("{\"sharedKv\":1}", "$.config.sharedKv: must be true or false, was number 1");
        malformed("{\"disaggregationMode\":null}", "$.config.disaggregationMode: must not be null");
        malformed("{\"split\":\"zigzag\"}",
                "$.config.split: must be one of [in-seq-split, round-robin-split, none], was \"zigzag\"");
        malformed("{\"cpsize\":8}", "$.config.cpsize: unknown field");
        malformed("{\"hicache\":{\"layout\":\"page_head\",\"extra\":1}}", "$.config.hicache.extra: unknown field");
        malformed("{\"hicache\":null}", "$.config.hicache: must be an object, was null");
        malformed("{\"devicePoolTokens\":99999999999999999999}",
                "$.config.devicePoolTokens: must fit a signed 64-bit integer, was 99999999999999999999");
    }

    @Test
    void answersAreNotMalformed() {
        assertThat(read("{\"maxRequests\":0,\"maxExtendTokens\":-64,\"chunkedPrefillSize\":-5}").maxRequests()).isZero();
    }

    @Test
    void duplicateKeysAndTrailingContentAreSyntaxErrors() {
        assertThatThrownBy(() -> read("{\"cpSize\":2,\"cpSize\":4}")).isInstanceOf(MalformedInputException.class)
                .hasMessageStartingWith("$: invalid JSON at line 1").hasMessageContaining("Duplicate field 'cpSize'");
        assertThatThrownBy(() -> read("{} {}")).isInstanceOf(MalformedInputException.class).hasMessageStartingWith("$: invalid JSON");
        assertThatThrownBy(() -> read("")).isInstanceOf(MalformedInputException.class).hasMessage("$: empty JSON document");
    }

    @Test
    void yamlFilesUseTheSameNamesAndRules(@TempDir Path dir) throws IOException {
        Path yaml = dir.resolve("prefill.yaml");
        Files.writeString(yaml, """
                cpSize: 8
                sharedKv: true
                bsGt1: true
                maxExtendTokens: 16384
                hicache:
                  enabled: true
                  layout: page_first_direct
                  ioBackend: direct
                """);
        CpSharedKvConfig c = ConfigJson.load(yaml);
        assertThat(c.maxExtendTokens()).isEqualTo(16384L);
        assertThat(StartupValidator.validate(c).ok()).isTrue();

        Files.writeString(yaml, "cpSize: 8\nsharedKV: true\n");
        assertThatThrownBy(() -> ConfigJson.load(yaml)).hasMessage("$.sharedKV: unknown field");
        assertThatThrownBy(() -> ConfigJson.load(dir.resolve("missing.json"))).isInstanceOf(MalformedInputException.class)
                .hasMessageContaining("no such file");
    }
}
