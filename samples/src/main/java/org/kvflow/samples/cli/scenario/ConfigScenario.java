package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.kvflow.core.config.ConfigJson;
import org.kvflow.core.config.StartupValidator;
import org.kvflow.core.config.ValidationReport;
import org.kvflow.core.json.JsonFields;

/** Kind {@code config} (contract §10): the startup matrix, with the normalised config when it passes. */
final class ConfigScenario implements Scenario {
    @Override
    public String kind() {
        return "config";
    }

    @Override
    public List<String> fields() {
        return List.of("config");
    }

    @Override
    public ObjectNode run(JsonFields in) {
        ValidationReport report = StartupValidator.validate(ConfigJson.read(in.get("config"), in.pathOf("config")));
        return ConfigAnswers.answer(report);
    }
}
