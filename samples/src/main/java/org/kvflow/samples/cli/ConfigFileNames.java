package org.kvflow.samples.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.kvflow.core.config.ConfigJson;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.json.JsonDocuments;
import org.kvflow.core.json.MalformedInputException;

/**
 * Config files take the flags' names: a key written as a flag without its dashes
 * ({@code attn-cp-size: 8}, {@code enable-hierarchical-cache: true}) means what the flag means. The
 * scenario format's camelCase fields ({@code cpSize}, {@code hicache.enabled}) are read too; one
 * setting given both ways is refused, naming both keys.
 */
final class ConfigFileNames {
    /** Flag name (without dashes) → field of the scenario format's config object ("hicache.x" is nested). */
    static final Map<String, String> FIELDS = Map.ofEntries(
            Map.entry("cp", "cpSize"), Map.entry("attn-cp-size", "cpSize"), Map.entry("page-size", "pageSize"),
            Map.entry("split", "split"), Map.entry("shared-kv", "sharedKv"), Map.entry("enable-cp-shared-kv-prefill-bs-gt1", "bsGt1"),
            Map.entry("cp-shared-kv-prefill-max-requests", "maxRequests"), Map.entry("cp-shared-kv-prefill-max-extend-tokens", "maxExtendTokens"),
            Map.entry("prefill-max-requests", "prefillMaxRequests"), Map.entry("chunked-prefill-size", "chunkedPrefillSize"),
            Map.entry("max-prefill-tokens", "maxPrefillTokens"), Map.entry("all-cp-ranks-transfer", "allCpRanksTransfer"),
            Map.entry("hisparse", "hisparse"), Map.entry("cp-ranks-same-node", "cpRanksSameNode"), Map.entry("kv-cache-dtype", "kvDtype"),
            Map.entry("disaggregation-mode", "disaggregationMode"), Map.entry("disaggregation-transfer-backend", "transferBackend"),
            Map.entry("model-kind", "model"), Map.entry("device-pool-tokens", "devicePoolTokens"),
            Map.entry("enable-hierarchical-cache", "hicache.enabled"), Map.entry("hicache-storage-backend", "hicache.storageBackend"),
            Map.entry("hicache-mem-layout", "hicache.layout"), Map.entry("hicache-io-backend", "hicache.ioBackend"),
            Map.entry("hicache-write-policy", "hicache.writePolicy"), Map.entry("hicache-host-pool-tokens", "hicache.hostPoolTokens"));

    private ConfigFileNames() {}

    /** Loads a config file (YAML for .yaml/.yml, JSON otherwise) whose keys may be the flags' names. */
    static CpSharedKvConfig load(Path file) {
        JsonNode node = JsonDocuments.parseJsonOrYaml(file);
        return ConfigJson.read(node.isObject() ? toFields((ObjectNode) node) : node, "$");
    }

    /** The same object with every flag-named key moved to its field. */
    static ObjectNode toFields(ObjectNode config) {
        ObjectNode out = config.deepCopy();
        List<String> keys = new ArrayList<>();
        config.fieldNames().forEachRemaining(keys::add);
        for (String key : keys) {
            String field = FIELDS.get(key);
            if (field == null || field.equals(key)) {
                continue;
            }
            ObjectNode target = out;
            String name = field;
            if (field.startsWith("hicache.")) {
                JsonNode hicache = out.get("hicache");
                target = hicache instanceof ObjectNode o ? o : out.putObject("hicache");
                name = field.substring("hicache.".length());
            }
            if (target.has(name)) {
                throw new MalformedInputException("$." + key, field + " is set twice: by " + key + " and by another key");
            }
            target.set(name, out.remove(key));
        }
        return out;
    }
}
