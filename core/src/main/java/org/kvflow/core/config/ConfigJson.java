package org.kvflow.core.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Path;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.json.JsonDocuments;
import org.kvflow.core.json.JsonFields;
import org.kvflow.core.json.MalformedInputException;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.split.SplitMode;

/**
 * The JSON/YAML form of {@link CpSharedKvConfig}: the {@code config} object of
 * docs/scenario-format.md, read strictly (unknown fields, wrong types, nulls where not allowed and
 * counts out of range are {@link MalformedInputException}s naming the field) and written back with
 * every field, defaults filled in and explicit nulls kept.
 */
public final class ConfigJson {
    private static final List<String> FIELDS = List.of("cpSize", "pageSize", "split", "sharedKv", "bsGt1",
            "allCpRanksTransfer", "hisparse", "cpRanksSameNode", "maxRequests", "maxExtendTokens",
            "prefillMaxRequests", "chunkedPrefillSize", "maxPrefillTokens", "kvDtype", "disaggregationMode",
            "transferBackend", "model", "devicePoolTokens", "hicache");
    private static final List<String> HICACHE_FIELDS = List.of("enabled", "storageBackend", "layout", "ioBackend",
            "writePolicy", "hostPoolTokens");
    private static final long MAX_INT = Integer.MAX_VALUE;

    private ConfigJson() {}

    /** Loads a config file: YAML for {@code .yaml}/{@code .yml}, JSON otherwise. */
    public static CpSharedKvConfig load(Path file) {
        return read(JsonDocuments.parseJsonOrYaml(file), "$");
    }

    /** Reads a {@code config} object found at {@code path}. */
    public static CpSharedKvConfig read(JsonNode node, String path) {
        JsonFields f = JsonFields.of(node, path, FIELDS);
        CpSharedKvConfig d = CpSharedKvConfig.DEFAULTS;
        return new CpSharedKvConfig(
                (int) f.integer("cpSize", d.cpSize(), 1, MAX_INT),
                (int) f.integer("pageSize", d.pageSize(), 1, MAX_INT),
                f.enumValue("split", SplitMode.class, d.split()),
                f.bool("sharedKv", d.sharedKv()),
                f.bool("bsGt1", d.bsGt1()),
                f.bool("allCpRanksTransfer", d.allCpRanksTransfer()),
                f.bool("hisparse", d.hisparse()),
                f.bool("cpRanksSameNode", d.cpRanksSameNode()),
                // The contract answers out-of-range caps and chunk sizes with E-ADM-2/3: any 64-bit integer is input.
                f.nullableInteger("maxRequests", d.maxRequests(), Long.MIN_VALUE, Long.MAX_VALUE),
                f.nullableInteger("maxExtendTokens", d.maxExtendTokens(), Long.MIN_VALUE, Long.MAX_VALUE),
                f.nullableInteger("prefillMaxRequests", d.prefillMaxRequests(), 0, Long.MAX_VALUE),
                f.nullableInteger("chunkedPrefillSize", d.chunkedPrefillSize(), Long.MIN_VALUE, Long.MAX_VALUE),
                f.integer("maxPrefillTokens", d.maxPrefillTokens(), 0, Long.MAX_VALUE),
                f.enumValue("kvDtype", KvDtype.class, d.kvDtype()),
                f.enumValue("disaggregationMode", DisaggregationMode.class, d.disaggregationMode()),
                f.enumValue("transferBackend", TransferBackendKind.class, d.transferBackend()),
                f.enumValue("model", ModelKind.class, d.model()),
                f.nullableInteger("devicePoolTokens", d.devicePoolTokens(), 0, Long.MAX_VALUE),
                readHiCache(f.object("hicache", HICACHE_FIELDS)));
    }

    private static HiCacheConfig readHiCache(JsonFields f) {
        HiCacheConfig d = HiCacheConfig.DEFAULTS;
        return new HiCacheConfig(
                f.bool("enabled", d.enabled()),
                f.enumValue("storageBackend", HiCacheStorageBackend.class, d.storageBackend()),
                f.enumValue("layout", HiCacheLayout.class, d.layout()),
                f.enumValue("ioBackend", HiCacheIoBackend.class, d.ioBackend()),
                f.enumValue("writePolicy", WritePolicy.class, d.writePolicy()),
                f.nullableInteger("hostPoolTokens", d.hostPoolTokens(), 0, Long.MAX_VALUE));
    }

    /** Every field, in docs/scenario-format.md order, unset values as JSON {@code null}. */
    public static ObjectNode write(CpSharedKvConfig c) {
        ObjectNode o = JsonNodeFactory.instance.objectNode();
        o.put("cpSize", c.cpSize());
        o.put("pageSize", c.pageSize());
        o.put("split", c.split().wireName());
        o.put("sharedKv", c.sharedKv());
        o.put("bsGt1", c.bsGt1());
        o.put("allCpRanksTransfer", c.allCpRanksTransfer());
        o.put("hisparse", c.hisparse());
        o.put("cpRanksSameNode", c.cpRanksSameNode());
        putNullable(o, "maxRequests", c.maxRequests());
        putNullable(o, "maxExtendTokens", c.maxExtendTokens());
        putNullable(o, "prefillMaxRequests", c.prefillMaxRequests());
        putNullable(o, "chunkedPrefillSize", c.chunkedPrefillSize());
        o.put("maxPrefillTokens", c.maxPrefillTokens());
        o.put("kvDtype", c.kvDtype().wireName());
        o.put("disaggregationMode", c.disaggregationMode().wireName());
        o.put("transferBackend", c.transferBackend().wireName());
        o.put("model", c.model().wireName());
        putNullable(o, "devicePoolTokens", c.devicePoolTokens());
        HiCacheConfig h = c.hicache();
        ObjectNode hc = o.putObject("hicache");
        hc.put("enabled", h.enabled());
        hc.put("storageBackend", h.storageBackend().wireName());
        hc.put("layout", h.layout().wireName());
        hc.put("ioBackend", h.ioBackend().wireName());
        hc.put("writePolicy", h.writePolicy().wireName());
        putNullable(hc, "hostPoolTokens", h.hostPoolTokens());
        return o;
    }

    private static void putNullable(ObjectNode o, String field, @Nullable Long value) {
        if (value == null) {
            o.putNull(field);
        } else {
            o.put(field, value);
        }
    }
}
