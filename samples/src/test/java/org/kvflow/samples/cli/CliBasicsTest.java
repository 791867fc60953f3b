package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** What a user meets first: a bare call, the version, a typo. */
class CliBasicsTest {
    @Test
    void aBareCallPrintsUsageOnStderrAndExitsTwo() {
        Cli.Result r = Cli.run();
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("Usage: kvflow [-hV] [COMMAND]").contains("demo").contains("decode-server");
    }

    @Test
    void versionIsTheArtifactVersion() {
        Cli.Result r = Cli.run("--version");
        assertThat(r.exit()).isZero();
        assertThat(System.getProperty("kvflow.artifact.version")).as("set by the build").isNotBlank();
        assertThat(r.out().strip()).isEqualTo("kvflow " + System.getProperty("kvflow.artifact.version"));
    }

    @Test
    void aMistypedOptionOrCommandGetsPicocliSuggestion() {
        Cli.Result option = Cli.run("demo", "--hots-bytes", "3");
        assertThat(option.exit()).isEqualTo(2);
        assertThat(option.err()).isEqualTo("kvflow: Unknown options: '--hots-bytes', '3' (did you mean --host-bytes?)\n");
        Cli.Result command = Cli.run("demoo");
        assertThat(command.exit()).isEqualTo(2);
        assertThat(command.err()).startsWith("kvflow: Unmatched argument at index 0: 'demoo' (did you mean demo");
        Cli.Result none = Cli.run("demo", "--zzz");
        assertThat(none.err()).as("nothing close: no suggestion").isEqualTo("kvflow: Unknown option: '--zzz'\n");
    }

    @Test
    void sizesTakeUnits() {
        ByteSize size = new ByteSize();
        assertThat(size.convert("40GiB")).isEqualTo(40L << 30);
        assertThat(size.convert("512 mib")).isEqualTo(512L << 20);
        assertThat(size.convert("2KB")).isEqualTo(2000);
        assertThat(size.convert("4096")).isEqualTo(4096);
        assertThat(size.convert("64B")).isEqualTo(64);
        Cli.Result withUnit = Cli.run("ownership", "--cp", "8", "--tokens", "131072", "--budget-bytes", "40GiB", "--json");
        Cli.Result inBytes = Cli.run("ownership", "--cp", "8", "--tokens", "131072", "--budget-bytes", "42949672960", "--json");
        assertThat(withUnit.exit()).isZero();
        assertThat(withUnit.out()).isEqualTo(inBytes.out());
        Cli.Result bad = Cli.run("ownership", "--cp", "8", "--tokens", "1", "--budget-bytes", "40 gigs");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err()).isEqualTo("kvflow: Invalid value for option '--budget-bytes': must be a size: bytes, or a number with KiB, MiB, GiB,"
                + " TiB (or KB, MB, GB, TB), was \"40 gigs\"\n");
        assertThat(Cli.run("ownership", "--cp", "8", "--tokens", "1", "--budget-bytes", "9999999TiB").err()).contains("was \"9999999TiB\"");
    }

    /** Every command's help shows its defaults and one example, and the example runs as written where it needs nothing outside. */
    @org.junit.jupiter.params.ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(strings = {"demo", "simulate", "validate-config", "ownership", "replay", "journal-info",
            "decode-server"})
    void helpShowsDefaultsAndAnExample(String command) {
        Cli.Result help = Cli.run(command, "--help");
        assertThat(help.exit()).isZero();
        String example = help.out().substring(help.out().indexOf("Example:"));
        assertThat(example).as("one example, after the options").contains("kvflow").contains(command.equals("simulate") ? "simulate --scenario -" : command);
        assertThat(help.out()).doesNotContain("${DEFAULT-VALUE}");
        if (List.of("demo", "ownership", "replay", "decode-server").contains(command)) { // the commands with defaulted options
            assertThat(help.out()).contains("Default: ");
        }
    }

    @Test
    void theSelfContainedExamplesRun() {
        assertThat(Cli.run("ownership", "--cp", "8", "--tokens", "131072", "--budget-bytes", "40GiB").exit()).isZero();
        assertThat(Cli.run("validate-config", "--cp", "8", "--shared-kv", "--enable-cp-shared-kv-prefill-bs-gt1", "--json").exit()).isZero();
    }
}
