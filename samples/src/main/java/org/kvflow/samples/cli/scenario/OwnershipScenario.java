package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.json.JsonValues;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.ownership.OwnershipMap;

/** Kind {@code ownership} (contract §4): owner and local page of page ids, full address of locs. */
final class OwnershipScenario implements Scenario {
    @Override
    public String kind() {
        return "ownership";
    }

    @Override
    public List<String> fields() {
        return List.of("cpSize", "pageSize", "pagesPerRank", "pageIds", "locs");
    }

    @Override
    public ObjectNode run(JsonFields in) {
        int cp = (int) in.requireInteger("cpSize", 1, Integer.MAX_VALUE);
        int ps = (int) in.requireInteger("pageSize", 1, Integer.MAX_VALUE);
        Long pagesPerRank = in.has("pagesPerRank") ? in.requireInteger("pagesPerRank", 0, Long.MAX_VALUE) : null;
        long[] pageIds = in.integers("pageIds", 0, JsonValues.MAX_ID);
        long[] locs = in.integers("locs", 0, Long.MAX_VALUE);
        OwnershipMap map = new OwnershipMap(cp, ps);

        ObjectNode out = Json.object();
        ArrayNode pages = out.putArray("pages");
        for (long page : pageIds) {
            pages.addObject().put("page", page).put("owner", map.owner(page)).put("localPage", map.localPage(page));
        }
        ArrayNode locRows = out.putArray("locs");
        for (int i = 0; i < locs.length; i++) {
            long loc = locs[i];
            long page = map.pageOfLoc(loc);
            ObjectNode row = locRows.addObject()
                    .put("loc", loc).put("page", page).put("offset", map.offsetOfLoc(loc))
                    .put("owner", map.ownerOfLoc(loc)).put("localPage", map.localPage(page))
                    .put("localRow", map.localRow(loc));
            if (pagesPerRank != null) {
                try {
                    row.put("sharedRow", map.sharedRow(loc, pagesPerRank));
                } catch (ArithmeticException e) {
                    throw new MalformedInputException(in.pathOf("locs") + "[" + i + "]",
                            "sharedRow of " + loc + " with pagesPerRank " + pagesPerRank + " overflows 64 bits");
                }
            }
        }
        return out;
    }
}
