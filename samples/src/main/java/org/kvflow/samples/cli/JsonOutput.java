package org.kvflow.samples.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import org.kvflow.core.json.JsonDocuments;

/** Writes one compact JSON document and a newline: the whole stdout of a JSON answer. */
final class JsonOutput {
    private JsonOutput() {}

    static void print(PrintWriter out, JsonNode answer) {
        try {
            out.println(JsonDocuments.json().writeValueAsString(answer));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("a JSON tree always serialises", e);
        }
        out.flush();
    }
}
