package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.core.validate.PageGroups;

/** Kind {@code pages} (contract §9): page-aligned validation; a violation is an answer, not malformed input. */
final class PagesScenario implements Scenario {
    @Override
    public String kind() {
        return "pages";
    }

    @Override
    public List<String> fields() {
        return List.of("pageSize", "indices");
    }

    @Override
    public ObjectNode run(JsonFields in) {
        long ps = in.requireInteger("pageSize", Long.MIN_VALUE, Long.MAX_VALUE);
        long[] indices = in.requireIntegers("indices", Long.MIN_VALUE, Long.MAX_VALUE);
        ObjectNode out = Json.object();
        try {
            int pages = PageGroups.validatePageAlignedTokenIndices(indices, ps, "simulate pages");
            return out.put("ok", true).put("pages", pages);
        } catch (PageGroupValidationException e) {
            out.put("ok", false).put("error", e.kind().name());
            if (e.group() >= 0) {
                out.put("group", e.group()).put("offset", e.offset());
            }
            return out.put("value", e.value());
        }
    }
}
