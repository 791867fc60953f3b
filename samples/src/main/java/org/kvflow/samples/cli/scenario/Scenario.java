package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.kvflow.core.json.JsonFields;

/** One scenario kind of docs/scenario-format.md. */
interface Scenario {
    /** Largest CP size a scenario whose answer lists every rank accepts (CP sizes in use are 2 to 64). */
    long MAX_CP = 1024;

    /** The value of {@code "kind"}. */
    String kind();

    /** The fields this kind accepts besides {@code "kind"}. */
    List<String> fields();

    /**
     * Evaluates the scenario.
     *
     * @throws org.kvflow.core.json.MalformedInputException naming the field that breaks the format
     */
    ObjectNode run(JsonFields in);
}
