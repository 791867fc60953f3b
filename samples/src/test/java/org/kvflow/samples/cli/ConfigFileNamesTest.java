package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Config files take the flags' names; the repo's example config validates. */
class ConfigFileNamesTest {
    @TempDir
    Path dir;

    @Test
    void theExampleConfigValidates() {
        Cli.Result r = Cli.run("validate-config", "--config", Path.of("..", "examples", "cp8-shared-kv.yaml").toString());
        assertThat(r.err()).isEmpty();
        assertThat(r.exit()).isZero();
        assertThat(r.out()).startsWith("config OK").contains("cpSize: 8").contains("bsGt1: true").contains("enabled: true");
    }

    @Test
    void flagNamesAndFieldNamesMeanTheSame() throws Exception {
        Path kebab = Files.writeString(dir.resolve("a.yaml"), "attn-cp-size: 4\nshared-kv: true\nhicache-mem-layout: page_first\n");
        Path camel = Files.writeString(dir.resolve("b.yaml"), "cpSize: 4\nsharedKv: true\nhicache:\n  layout: page_first\n");
        assertThat(Cli.run("validate-config", "--config", kebab.toString(), "--json").out())
                .isEqualTo(Cli.run("validate-config", "--config", camel.toString(), "--json").out());
        Path both = Files.writeString(dir.resolve("c.yaml"), "cp: 4\ncpSize: 8\n");
        Cli.Result twice = Cli.run("validate-config", "--config", both.toString());
        assertThat(twice.exit()).isEqualTo(2);
        assertThat(twice.err()).isEqualTo("kvflow: $.cp: cpSize is set twice: by cp and by another key" + System.lineSeparator());
        Path typo = Files.writeString(dir.resolve("d.yaml"), "attn-cp-sizes: 4\n");
        assertThat(Cli.run("validate-config", "--config", typo.toString()).err()).isEqualTo("kvflow: $.attn-cp-sizes: unknown field"
                + System.lineSeparator());
    }

    @Test
    void everyConfigFlagHasItsFileName() {
        Set<String> flags = new CommandLine(new ValidateConfigCommand()).getCommandSpec().options().stream()
                .flatMap(o -> java.util.Arrays.stream(o.names()))
                .filter(n -> !Set.of("--config", "--json", "--help", "--version", "-h", "-V").contains(n))
                .map(n -> n.substring(2)).collect(Collectors.toSet());
        assertThat(ConfigFileNames.FIELDS.keySet()).isEqualTo(flags);
    }
}
