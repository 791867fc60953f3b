package org.kvflow.samples.cli.scenario;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.json.JsonValues;

/** Kind {@code hicache-keys} (contract §11.1): chained page hashes of the full pages of a prompt. */
final class HiCacheKeysScenario implements Scenario {
    @Override
    public String kind() {
        return "hicache-keys";
    }

    @Override
    public List<String> fields() {
        return List.of("pageSize", "tokenIds");
    }

    @Override
    public ObjectNode run(JsonFields in) {
        int ps = (int) in.requireInteger("pageSize", 1, Integer.MAX_VALUE);
        long[] wide = in.requireIntegers("tokenIds", 0, JsonValues.MAX_ID);
        int[] tokens = new int[wide.length];
        for (int i = 0; i < wide.length; i++) {
            tokens[i] = (int) wide[i];
        }
        List<byte[]> hashes = PageHashChain.fullPageHashes(tokens, ps);
        ObjectNode out = Json.object();
        ArrayNode pages = out.putArray("pages");
        for (int pos = 0; pos < hashes.size(); pos++) {
            pages.addObject().put("pos", pos).put("hash", PageHashChain.key(hashes.get(pos)));
        }
        return out.put("backedUpPages", hashes.size());
    }
}
