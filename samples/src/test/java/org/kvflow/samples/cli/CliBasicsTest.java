package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

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
}
