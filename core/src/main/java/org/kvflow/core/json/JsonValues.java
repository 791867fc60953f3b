package org.kvflow.core.json;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/** Strict conversions of single JSON values; each failure names the value's path. */
public final class JsonValues {
    /** Largest page id or token id (contract, notation). */
    public static final long MAX_ID = Integer.MAX_VALUE;

    private JsonValues() {}

    /** An integer in {@code [min, max]}: no fraction, no exponent, no null, no string. */
    public static long integer(@Nullable JsonNode node, String path, long min, long max) {
        requirePresent(node, path);
        if (!node.isIntegralNumber()) {
            throw new MalformedInputException(path, "must be an integer, was " + describe(node));
        }
        if (!node.canConvertToLong()) {
            throw new MalformedInputException(path, "must fit a signed 64-bit integer, was " + node.asText());
        }
        long value = node.longValue();
        if (value < min) {
            throw new MalformedInputException(path, "must be >= " + min + ", was " + value);
        }
        if (value > max) {
            throw new MalformedInputException(path, "must be <= " + max + ", was " + value);
        }
        return value;
    }

    /** A finite number in {@code [min, max]}, integer or not: no null, no string. */
    public static double number(@Nullable JsonNode node, String path, double min, double max) {
        requirePresent(node, path);
        if (!node.isNumber() || !Double.isFinite(node.doubleValue())) {
            throw new MalformedInputException(path, "must be a finite number, was " + describe(node));
        }
        double value = node.doubleValue();
        if (value < min) {
            throw new MalformedInputException(path, "must be >= " + min + ", was " + node.asText());
        }
        if (value > max) {
            throw new MalformedInputException(path, "must be <= " + max + ", was " + node.asText());
        }
        return value;
    }

    /** A JSON boolean. */
    public static boolean bool(@Nullable JsonNode node, String path) {
        requirePresent(node, path);
        if (!node.isBoolean()) {
            throw new MalformedInputException(path, "must be true or false, was " + describe(node));
        }
        return node.booleanValue();
    }

    /** A JSON string. */
    public static String string(@Nullable JsonNode node, String path) {
        requirePresent(node, path);
        if (!node.isTextual()) {
            throw new MalformedInputException(path, "must be a string, was " + describe(node));
        }
        return node.textValue();
    }

    /** One of the closed set of spellings of {@code type}. */
    public static <E extends Enum<E> & WireEnum> E enumValue(@Nullable JsonNode node, String path, Class<E> type) {
        String text = string(node, path);
        return WireEnum.parse(type, text).orElseThrow(() -> new MalformedInputException(path,
                "must be one of " + WireEnum.names(type) + ", was \"" + text + "\""));
    }

    /** The elements of a JSON array. */
    public static List<JsonNode> array(@Nullable JsonNode node, String path) {
        requirePresent(node, path);
        if (!node.isArray()) {
            throw new MalformedInputException(path, "must be an array, was " + describe(node));
        }
        List<JsonNode> items = new ArrayList<>(node.size());
        node.forEach(items::add);
        return items;
    }

    /** An array of integers, each in {@code [min, max]}. */
    public static long[] integers(@Nullable JsonNode node, String path, long min, long max) {
        List<JsonNode> items = array(node, path);
        long[] values = new long[items.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = integer(items.get(i), path + "[" + i + "]", min, max);
        }
        return values;
    }

    /** A short description of a value's type and text, for error messages. */
    public static String describe(JsonNode node) {
        if (node.isNull()) {
            return "null";
        }
        String kind = node.getNodeType().name().toLowerCase();
        String text = node.isContainerNode() ? "" : " " + node.toString();
        if (text.length() > 40) {
            text = text.substring(0, 37) + "...";
        }
        return kind + text;
    }

    private static void requirePresent(@Nullable JsonNode node, String path) {
        if (node == null || node.isMissingNode()) {
            throw new MalformedInputException(path, "required field is missing");
        }
        if (node.isNull()) {
            throw new MalformedInputException(path, "must not be null");
        }
    }
}
