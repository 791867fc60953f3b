package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.json.JsonValues;
import org.kvflow.core.json.MalformedInputException;

/** Runs one {@code kvflow simulate} scenario document: dispatches on {@code "kind"}. Thread-safe. */
public final class ScenarioRunner {
    private final Map<String, Scenario> kinds = new LinkedHashMap<>();

    public ScenarioRunner() {
        for (Scenario s : List.of(new OwnershipScenario(), new SplitScenario(), new PagesScenario(),
                new ConfigScenario(), new HiCacheKeysScenario(), new AdmissionScenario(),
                new TransferScenario())) {
            kinds.put(s.kind(), s);
        }
    }

    /**
     * @param document the parsed scenario file
     * @return the answer object
     * @throws MalformedInputException when the document breaks docs/scenario-format.md
     */
    public ObjectNode run(JsonNode document) {
        if (!document.isObject()) {
            throw new MalformedInputException("$", "must be an object, was " + JsonValues.describe(document));
        }
        String kind = JsonValues.string(document.get("kind"), "$.kind");
        Scenario scenario = kinds.get(kind);
        if (scenario == null) {
            throw new MalformedInputException("$.kind", "must be one of " + kinds.keySet() + ", was \"" + kind + "\"");
        }
        List<String> allowed = new ArrayList<>(scenario.fields());
        allowed.add("kind");
        return scenario.run(JsonFields.of(document, "$", allowed));
    }
}
