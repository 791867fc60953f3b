package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Malformed scenario and config files: exit 2, nothing on stdout, one line on stderr naming the field. */
class MalformedInputTest {
    @TempDir
    Path dir;

    private static void assertMalformed(Cli.Result r, String expectedLine) {
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo(expectedLine + System.lineSeparator());
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', quoteCharacter = '`', textBlock = """
            {}                                                                  | kvflow: $.kind: required field is missing
            {"kind":"decode"}                                                   | kvflow: $.kind: must be one of [ownership, split, pages, config, hicache-keys, admission, transfer], was "decode"
            {"kind":7}                                                          | kvflow: $.kind: must be a string, was number 7
            [1,2]                                                               | kvflow: $: must be an object, was array
            {"kind":"split","mode":"in-seq-split","cpSize":4}                   | kvflow: $.tokens: required field is missing
            {"kind":"split","mode":"in-seq-split","cpSize":0,"tokens":8}        | kvflow: $.cpSize: must be >= 1, was 0
            {"kind":"split","mode":"in-seq-split","cpSize":1000000,"tokens":2000000} | kvflow: $.cpSize: must be <= 1024, was 1000000
            {"kind":"split","mode":"round-robin-split","cpSize":4,"tokens":4000000} | kvflow: $.tokens: must be <= 1048576, was 4000000
            {"kind":"split","mode":"in-seq-split","cpSize":4,"tokens":-20}      | kvflow: $.tokens: must be >= 0, was -20
            {"kind":"split","mode":"in-seq-split","cpSize":4,"tokens":"20"}     | kvflow: $.tokens: must be an integer, was string "20"
            {"kind":"split","mode":"in-seq-split","cpSize":4,"tokens":20.0}     | kvflow: $.tokens: must be an integer, was number 20.0
            {"kind":"split","mode":"in-seq-split","cpSize":4,"tokens":2e1}      | kvflow: $.tokens: must be an integer, was number 20.0
            {"kind":"split","mode":"zigzag","cpSize":4,"tokens":20}             | kvflow: $.mode: must be one of [in-seq-split, round-robin-split, none], was "zigzag"
            {"kind":"split","mode":"none","cpSize":4,"tokens":20}               | kvflow: $.mode: must be one of [in-seq-split, round-robin-split], was "none"
            {"kind":"split","mode":"in-seq-split","cpSize":null,"tokens":20}    | kvflow: $.cpSize: must not be null
            {"kind":"pages","pageSize":4,"indices":[],"extra":1}                | kvflow: $.extra: unknown field
            {"kind":"pages","pageSize":4,"indices":"0,1,2,3"}                   | kvflow: $.indices: must be an array, was string "0,1,2,3"
            {"kind":"pages","pageSize":4,"indices":[0,1,2,9223372036854775808]} | kvflow: $.indices[3]: must fit a signed 64-bit integer, was 9223372036854775808
            {"kind":"pages","pageSize":4}                                       | kvflow: $.indices: required field is missing
            {"kind":"ownership","cpSize":8,"pageSize":64,"pageIds":[2147483648]} | kvflow: $.pageIds[0]: must be <= 2147483647, was 2147483648
            {"kind":"ownership","cpSize":8,"pageSize":64,"locs":[5,-1]}         | kvflow: $.locs[1]: must be >= 0, was -1
            {"kind":"ownership","cpSize":8,"pageSize":0}                        | kvflow: $.pageSize: must be >= 1, was 0
            {"kind":"ownership","pageSize":64}                                  | kvflow: $.cpSize: required field is missing
            {"kind":"ownership","cpSize":8,"pageSize":64,"pagesPerRank":-1}     | kvflow: $.pagesPerRank: must be >= 0, was -1
            {"kind":"hicache-keys","pageSize":2,"tokenIds":[1,-2]}              | kvflow: $.tokenIds[1]: must be >= 0, was -2
            {"kind":"hicache-keys","pageSize":2,"tokenIds":[1,2147483648]}      | kvflow: $.tokenIds[1]: must be <= 2147483647, was 2147483648
            {"kind":"config"}                                                   | kvflow: $.config: required field is missing
            {"kind":"config","config":[]}                                       | kvflow: $.config: must be an object, was array
            {"kind":"config","config":{"cpSize":-8}}                            | kvflow: $.config.cpSize: must be >= 1, was -8
            {"kind":"config","config":{"kvDtype":"fp16"}}                       | kvflow: $.config.kvDtype: must be one of [bf16, fp8_e4m3], was "fp16"
            {"kind":"config","config":{"disaggregationMode":null}}              | kvflow: $.config.disaggregationMode: must not be null
            {"kind":"config","config":{"hicache":{"writePolicy":"lazy"}}}       | kvflow: $.config.hicache.writePolicy: must be one of [write_through, write_through_selective, write_back], was "lazy"
            {"kind":"config","config":{"hicache":{"hostPoolTokens":-1}}}        | kvflow: $.config.hicache.hostPoolTokens: must be >= 0, was -1
            {"kind":"admission"}                                                | kvflow: $.remTotal: required field is missing
            {"kind":"admission","remTotal":-1}                                  | kvflow: $.remTotal: must be >= 0, was -1
            {"kind":"admission","remTotal":9,"queue":[{"extendLen":5}]}         | kvflow: $.queue[0].name: required field is missing
            {"kind":"admission","remTotal":9,"queue":[{"name":"A","extendLen":-5}]} | kvflow: $.queue[0].extendLen: must be >= 1, was -5
            {"kind":"admission","remTotal":9,"queue":[{"name":"A","extendLen":5,"prio":1}]} | kvflow: $.queue[0].prio: unknown field
            {"kind":"admission","remTotal":9,"queue":[{"name":"A","extendLen":5},{"name":"A","extendLen":6}]} | kvflow: $.queue[1].name: duplicate name "A"
            {"kind":"admission","remTotal":9,"chunked":{"name":"A","extendLen":5},"queue":[{"name":"A","extendLen":6}]} | kvflow: $.queue[0].name: duplicate name "A"
            {"kind":"admission","remTotal":9,"queue":[{"name":"A","extendLen":500,"prefixLen":10}]} | kvflow: $.queue[0].prefixLen: must be a multiple of pageSize 64, was 10
            {"kind":"admission","remTotal":9,"queue":[{"name":"A","extendLen":500,"hostHitLen":100}]} | kvflow: $.queue[0].hostHitLen: must be a multiple of pageSize 64, was 100
            {"kind":"admission","remTotal":9,"queue":[{"name":"A","extendLen":128,"hostHitLen":128}]} | kvflow: $.queue[0].hostHitLen: must be < extendLen 128, was 128
            {"kind":"admission","remTotal":9,"queue":[{"name":"A","extendLen":12,"maxNew":-1}]} | kvflow: $.queue[0].maxNew: must be >= 0, was -1
            {"kind":"admission","remTotal":9,"config":{"chunkedPrefillSize":null},"chunked":{"name":"X","extendLen":5}} | kvflow: $.chunked: needs chunked prefill enabled (config.chunkedPrefillSize is null)
            {"kind":"admission","remTotal":9,"config":{"bsgt1":true}}           | kvflow: $.config.bsgt1: unknown field
            {"kind":"admission","remTotal":9,"config":{"split":"diagonal"}}     | kvflow: $.config.split: must be one of [in-seq-split, round-robin-split, none], was "diagonal"
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8,9],"decodePages":[1,2],"chunk":[0,2],"seqLen":64} | kvflow: $.prefillPages: must hold ceil(seqLen / pageSize) = 1 pages, has 2
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8],"decodePages":[1],"chunk":[0,2],"seqLen":64} | kvflow: $.chunk: must satisfy 0 <= start <= end <= 1, was [0, 2]
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8],"decodePages":[1],"chunk":[1,0],"seqLen":64} | kvflow: $.chunk: must satisfy 0 <= start <= end <= 1, was [1, 0]
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8],"decodePages":[1],"chunk":[-1,1],"seqLen":64} | kvflow: $.chunk[0]: must be >= 0, was -1
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8],"decodePages":[1],"chunk":[0],"seqLen":64} | kvflow: $.chunk: must be [start, end], has 1 entries
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8],"decodePages":[-1],"chunk":[0,1],"seqLen":64} | kvflow: $.decodePages[0]: must be >= 0, was -1
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8],"chunk":[0,1],"seqLen":64} | kvflow: $.decodePages: required field is missing
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8],"decodePages":[1],"chunk":[0,1],"seqLen":-64} | kvflow: $.seqLen: must be >= 0, was -64
            {"kind":"transfer","cpSize":4,"pageSize":64,"prefillPages":[8],"decodePages":[1],"chunk":[0,1],"seqLen":64,"config":{}} | kvflow: $.config: unknown field
            """)
    void malformedScenarioExitsTwoNamingTheField(String scenario, String expected) throws IOException {
        Path file = dir.resolve("s.json");
        Files.writeString(file, scenario);
        assertMalformed(Cli.run("simulate", "--scenario", file.toString()), expected);
    }

    @Test
    void duplicateKeyIsASyntaxError() throws IOException {
        Path file = dir.resolve("dup.json");
        Files.writeString(file, "{\"kind\":\"pages\",\"pageSize\":4,\"pageSize\":8,\"indices\":[]}");
        Cli.Result r = Cli.run("simulate", "--scenario", file.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("kvflow: $: invalid JSON at line 1, column ").contains("Duplicate field 'pageSize'")
                .hasLineCount(1);
    }

    @Test
    void tenMegabytesOfGarbageIsOneLine() throws IOException {
        Path file = dir.resolve("garbage.json");
        byte[] chunk = new byte[1 << 20];
        SplittableRandom random = new SplittableRandom(7);
        try (OutputStream out = Files.newOutputStream(file)) {
            for (int i = 0; i < 10; i++) {
                for (int j = 0; j < chunk.length; j++) {
                    chunk[j] = (byte) random.nextInt(256);
                }
                out.write(chunk);
            }
        }
        Cli.Result r = Cli.run("simulate", "--scenario", file.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("kvflow: $: invalid JSON").hasLineCount(1).doesNotContain("\tat ");
    }

    @Test
    void truncatedDocumentIsOneLine() throws IOException {
        Path file = dir.resolve("cut.json");
        Files.writeString(file, "{\"kind\":\"split\",\"mode\":\"in-seq-split\",\"cpSize\":4,\"tok");
        Cli.Result r = Cli.run("simulate", "--scenario", file.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("kvflow: $: invalid JSON at line 1").hasLineCount(1);
    }

    @Test
    void aPathTooLongToOpenIsMalformedInputShownByItsStart() {
        String name = "a".repeat(100_000);
        assertMalformed(Cli.run("validate-config", "--config", name),
                "kvflow: $: cannot read " + "a".repeat(60) + "… (a path of 100000 characters): File name too long");
    }

    @Test
    void aYamlConfigOverOneMebibyteIsRefusedBeforeItIsParsed() throws Exception {
        java.nio.file.Path huge = dir.resolve("huge.yaml");
        java.nio.file.Files.writeString(huge, "cp: \"" + "x".repeat(1 << 20) + "\"\n");
        long size = java.nio.file.Files.size(huge);
        assertMalformed(Cli.run("validate-config", "--config", huge.toString()),
                "kvflow: $: " + huge + " is " + size + " bytes; a YAML document is at most 1048576 (a config needs far less)");
    }

    @Test
    void missingFileAndMissingOption() {
        assertMalformed(Cli.run("simulate", "--scenario", dir.resolve("nope.json").toString()),
                "kvflow: $: no such file: " + dir.resolve("nope.json"));
        Cli.Result r = Cli.run("simulate");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).isEqualTo("kvflow: Missing required option: '--scenario=FILE'" + System.lineSeparator());
    }

    @Test
    void malformedConfigFile() throws IOException {
        Path yaml = dir.resolve("bad.yaml");
        Files.writeString(yaml, "cpSize: 8\npageSize: [64]\n");
        assertMalformed(Cli.run("validate-config", "--config", yaml.toString()),
                "kvflow: $.pageSize: must be an integer, was array");
        Files.writeString(yaml, "cpSize: 8\nmaxRequest: 4\n");
        assertMalformed(Cli.run("validate-config", "--config", yaml.toString()), "kvflow: $.maxRequest: unknown field");
        Files.writeString(yaml, "cpSize: 8\n  pageSize: 64\n");
        Cli.Result r = Cli.run("validate-config", "--config", yaml.toString());
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("kvflow: $: invalid YAML at line").hasLineCount(1);
    }

    @Test
    void badFlagValueNamesTheFlag() {
        Cli.Result r = Cli.run("validate-config", "--split", "diagonal");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).contains("--split").contains("must be one of [in-seq-split, round-robin-split, none], was \"diagonal\"")
                .hasLineCount(1);
    }
}
