package org.kvflow.samples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.kvflow.core.config.ConfigIssue;
import org.kvflow.core.config.ConfigJson;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.StartupValidator;
import org.kvflow.core.config.ValidationReport;
import org.kvflow.samples.cli.scenario.ConfigAnswers;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code kvflow validate-config}: loads a YAML/JSON config (or the defaults), applies flag
 * overrides, runs the startup matrix of contract §10. Exit 0 with the normalised config, or exit 2
 * with every failing check and its code.
 */
@Command(name = "validate-config", mixinStandardHelpOptions = true, showDefaultValues = true,
        footer = {"%nExample:", "  kvflow validate-config --cp 8 --shared-kv --enable-cp-shared-kv-prefill-bs-gt1 --json"},
        description = "Validate a config (contract §10): exit 0 and the normalised config, or exit 2 and every error with its code.")
final class ValidateConfigCommand implements Callable<Integer> {
    private static final ObjectMapper YAML = new YAMLMapper();

    @Spec
    private CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE", description = "config file (.yaml/.yml or .json), keys named as these flags "
            + "(attn-cp-size: 8) or as the scenario format's fields (cpSize: 8); defaults when absent")
    private Path config;

    @Option(names = "--json", description = "print the answer as JSON (the `config` scenario's answer object)")
    private boolean json;

    @Mixin
    private ConfigOverrides overrides;

    @Override
    public Integer call() throws JsonProcessingException {
        CpSharedKvConfig base = config == null ? CpSharedKvConfig.DEFAULTS : ConfigFileNames.load(config);
        ValidationReport report = StartupValidator.validate(overrides.apply(base));
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            JsonOutput.print(out, ConfigAnswers.answer(report));
        } else if (report.ok()) {
            out.println("config OK");
            report.warnings().forEach(w -> out.println("warning " + w));
            out.print(YAML.writeValueAsString(ConfigJson.write(report.normalized())));
        } else {
            out.println("config rejected: " + report.errors().size() + " startup check(s) failed");
            for (ConfigIssue e : report.errors()) {
                out.println(e);
            }
        }
        out.flush();
        return report.ok() ? KvflowCli.EXIT_OK : KvflowCli.EXIT_MALFORMED;
    }
}
