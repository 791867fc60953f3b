package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.ConfigJson;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.operators.admission.AdmissionCandidate;
import org.kvflow.operators.admission.AdmissionPass;
import org.kvflow.operators.admission.PrefillAdder;

/** Kind {@code admission} (contract §6): one PrefillAdder pass over a waiting queue. */
final class AdmissionScenario implements Scenario {
    private static final List<String> ITEM_FIELDS = List.of("name", "extendLen", "prefixLen", "hostHitLen", "maxNew");
    private static final List<String> CHUNKED_FIELDS = List.of("name", "extendLen", "maxNew");

    @Override
    public String kind() {
        return "admission";
    }

    @Override
    public List<String> fields() {
        return List.of("config", "remTotal", "chunked", "queue");
    }

    @Override
    public ObjectNode run(JsonFields in) {
        CpSharedKvConfig config = in.has("config")
                ? ConfigJson.read(in.get("config"), in.pathOf("config")) : CpSharedKvConfig.DEFAULTS;
        long remTotal = in.requireInteger("remTotal", 0, Long.MAX_VALUE);
        Set<String> names = new HashSet<>();
        AdmissionCandidate chunked = readChunked(in, config, names);
        List<AdmissionCandidate> queue = new ArrayList<>();
        List<JsonNode> items = in.array("queue");
        for (int i = 0; i < items.size(); i++) {
            queue.add(readItem(JsonFields.of(items.get(i), in.pathOf("queue") + "[" + i + "]", ITEM_FIELDS), config, names));
        }
        AdmissionPass pass = new PrefillAdder(config).pass(remTotal, remTotal, chunked, queue);

        ObjectNode out = Json.object();
        ArrayNode admitted = out.putArray("admitted");
        for (AdmissionPass.Admitted a : pass.admitted()) {
            admitted.addObject().put("name", a.name()).put("extendLen", a.extendLen());
        }
        if (pass.chunked() == null) {
            out.putNull("chunked");
        } else {
            out.put("chunked", pass.chunked());
        }
        return out.put("stop", pass.stop().name());
    }

    private static @Nullable AdmissionCandidate readChunked(JsonFields in, CpSharedKvConfig config, Set<String> names) {
        if (!in.has("chunked") || in.get("chunked").isNull()) {
            return null;
        }
        if (config.chunkedPrefillSize() == null) {
            throw new MalformedInputException(in.pathOf("chunked"), "needs chunked prefill enabled (config.chunkedPrefillSize is null)");
        }
        JsonFields f = in.object("chunked", CHUNKED_FIELDS);
        String name = uniqueName(f, names);
        return new AdmissionCandidate(name, f.requireInteger("extendLen", 1, Long.MAX_VALUE), 0,
                f.integer("maxNew", 0, 0, Long.MAX_VALUE));
    }

    private static AdmissionCandidate readItem(JsonFields f, CpSharedKvConfig config, Set<String> names) {
        String name = uniqueName(f, names);
        long extendLen = f.requireInteger("extendLen", 1, Long.MAX_VALUE);
        long ps = config.pageSize();
        long prefixLen = f.integer("prefixLen", 0, 0, Long.MAX_VALUE);
        if (prefixLen % ps != 0) {
            throw new MalformedInputException(f.pathOf("prefixLen"), "must be a multiple of pageSize " + ps + ", was " + prefixLen);
        }
        long hostHitLen = f.integer("hostHitLen", 0, 0, Long.MAX_VALUE);
        if (hostHitLen % ps != 0) {
            throw new MalformedInputException(f.pathOf("hostHitLen"), "must be a multiple of pageSize " + ps + ", was " + hostHitLen);
        }
        if (hostHitLen >= extendLen) {
            throw new MalformedInputException(f.pathOf("hostHitLen"), "must be < extendLen " + extendLen + ", was " + hostHitLen);
        }
        return new AdmissionCandidate(name, extendLen, hostHitLen, f.integer("maxNew", 0, 0, Long.MAX_VALUE));
    }

    private static String uniqueName(JsonFields f, Set<String> names) {
        String name = f.requireString("name");
        if (!names.add(name)) {
            throw new MalformedInputException(f.pathOf("name"), "duplicate name \"" + name + "\"");
        }
        return name;
    }
}
