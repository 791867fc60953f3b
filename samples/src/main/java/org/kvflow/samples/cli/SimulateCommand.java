package org.kvflow.samples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.kvflow.core.json.JsonDocuments;
import org.kvflow.samples.cli.scenario.ScenarioRunner;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

/** {@code kvflow simulate}: one scenario of docs/scenario-format.md in, one JSON answer out. */
@Command(name = "simulate", mixinStandardHelpOptions = true, showDefaultValues = true,
        footer = {"%nExample:", "  echo '{\"kind\":\"split\",\"mode\":\"in-seq-split\",\"cpSize\":4,\"tokens\":20}' | kvflow simulate --scenario -"},
        description = "Run one scenario (docs/scenario-format.md) through the library's pure stages; prints one JSON document.")
final class SimulateCommand implements Callable<Integer> {
    @Spec
    private CommandSpec spec;

    @Option(names = "--scenario", required = true, paramLabel = "FILE", description = "scenario JSON file, or - for stdin")
    private String scenario;

    @Option(names = "--json", description = "accepted for symmetry: simulate always prints JSON")
    private boolean json;

    @Override
    public Integer call() {
        JsonNode document = "-".equals(scenario)
                ? JsonDocuments.parseJson(System.in)
                : JsonDocuments.parseJson(Path.of(scenario));
        JsonOutput.print(spec.commandLine().getOut(), new ScenarioRunner().run(document));
        return KvflowCli.EXIT_OK;
    }
}
