package org.kvflow.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.MissingNode;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Strict field access on one JSON object: built only for an object whose field names all belong to
 * an allowed set, then read field by field. Absent fields take the given default; an explicit
 * {@code null} is accepted only by the {@code nullable*} readers; every error names the field's
 * path (docs/scenario-format.md, "Rules every kind follows").
 */
public final class JsonFields {
    private final JsonNode node;
    private final String path;

    private JsonFields(JsonNode node, String path) {
        this.node = node;
        this.path = path;
    }

    /**
     * @param node    the value, which must be a JSON object
     * @param path    its JSON path, {@code $} for the document
     * @param allowed the field names the object may have
     * @throws MalformedInputException if it is not an object or has a field not in {@code allowed}
     */
    public static JsonFields of(@Nullable JsonNode node, String path, Collection<String> allowed) {
        if (node == null || node.isMissingNode()) {
            throw new MalformedInputException(path, "required field is missing");
        }
        if (!node.isObject()) {
            throw new MalformedInputException(path, "must be an object, was " + JsonValues.describe(node));
        }
        for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!allowed.contains(name)) {
                throw new MalformedInputException(path + "." + name, "unknown field");
            }
        }
        return new JsonFields(node, path);
    }

    public String path() {
        return path;
    }

    /** Path of a field of this object. */
    public String pathOf(String field) {
        return path + "." + field;
    }

    /** True when the field is present, even as {@code null}. */
    public boolean has(String field) {
        return node.has(field);
    }

    /** The raw value, {@link MissingNode} when absent. */
    public JsonNode get(String field) {
        JsonNode value = node.get(field);
        return value == null ? MissingNode.getInstance() : value;
    }

    public long requireInteger(String field, long min, long max) {
        return JsonValues.integer(get(field), pathOf(field), min, max);
    }

    public long integer(String field, long defaultValue, long min, long max) {
        return has(field) ? requireInteger(field, min, max) : defaultValue;
    }

    /** An integer where {@code null} means unset; absent gives {@code defaultValue}. */
    public @Nullable Long nullableInteger(String field, @Nullable Long defaultValue, long min, long max) {
        if (!has(field)) {
            return defaultValue;
        }
        return get(field).isNull() ? null : requireInteger(field, min, max);
    }

    public double requireNumber(String field, double min, double max) {
        return JsonValues.number(get(field), pathOf(field), min, max);
    }

    public double number(String field, double defaultValue, double min, double max) {
        return has(field) ? requireNumber(field, min, max) : defaultValue;
    }

    public boolean bool(String field, boolean defaultValue) {
        return has(field) ? JsonValues.bool(get(field), pathOf(field)) : defaultValue;
    }

    public String requireString(String field) {
        return JsonValues.string(get(field), pathOf(field));
    }

    public <E extends Enum<E> & WireEnum> E requireEnum(String field, Class<E> type) {
        return JsonValues.enumValue(get(field), pathOf(field), type);
    }

    public <E extends Enum<E> & WireEnum> E enumValue(String field, Class<E> type, E defaultValue) {
        return has(field) ? requireEnum(field, type) : defaultValue;
    }

    /** A nested object; when absent, an empty object (all its defaults). */
    public JsonFields object(String field, Collection<String> allowed) {
        JsonNode value = has(field) ? get(field) : JsonNodeFactory.instance.objectNode();
        return of(value, pathOf(field), allowed);
    }

    /** An array's elements; when absent, an empty list. */
    public List<JsonNode> array(String field) {
        return has(field) ? JsonValues.array(get(field), pathOf(field)) : List.of();
    }

    /** An array of integers in {@code [min, max]}; when absent, empty. */
    public long[] integers(String field, long min, long max) {
        return has(field) ? requireIntegers(field, min, max) : new long[0];
    }

    public long[] requireIntegers(String field, long min, long max) {
        return JsonValues.integers(get(field), pathOf(field), min, max);
    }
}
