package org.kvflow.traffic;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A trace file of JSON lines ({@code timestamp}, {@code input_length}, {@code output_length},
 * {@code hash_ids}), read and checked whole: every field present and of its type, lengths not
 * negative, no more hash ids than the prompt has blocks (nor fewer), timestamps never going back.
 * A bad line is refused with its number; blank lines are skipped.
 */
public final class TraceFile {
    private static final ObjectMapper JSON = new ObjectMapper();

    private TraceFile() {}

    /**
     * Reads and checks {@code file}.
     *
     * @param file a trace in JSON lines
     * @return its requests, in file order
     * @throws TraceFormatException naming the file and the first bad line
     */
    public static List<TraceRequest> read(Path file) {
        List<TraceRequest> requests = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String text;
            int line = 0;
            long last = Long.MIN_VALUE;
            while ((text = in.readLine()) != null) {
                line++;
                if (text.isBlank()) {
                    continue;
                }
                TraceRequest r = parse(file, line, text);
                if (r.timestampMs() < last) {
                    throw new TraceFormatException(file + ":" + line + ": timestamp " + r.timestampMs() + " is before the previous line's " + last);
                }
                last = r.timestampMs();
                requests.add(r);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(file + ": cannot read: " + e.getMessage(), e);
        }
        return requests;
    }

    private static TraceRequest parse(Path file, int line, String text) {
        String where = file + ":" + line + ": ";
        JsonNode node;
        try {
            node = JSON.readTree(text);
        } catch (JsonProcessingException e) {
            throw new TraceFormatException(where + "not a JSON object (" + e.getOriginalMessage() + ")");
        }
        if (node == null || !node.isObject()) {
            throw new TraceFormatException(where + "not a JSON object");
        }
        long timestamp = number(node, "timestamp", where);
        long input = number(node, "input_length", where);
        long output = number(node, "output_length", where);
        JsonNode ids = node.get("hash_ids");
        if (ids == null || !ids.isArray()) {
            throw new TraceFormatException(where + "hash_ids missing or not an array");
        }
        if (input > Integer.MAX_VALUE || output > Integer.MAX_VALUE) {
            throw new TraceFormatException(where + "a length past " + Integer.MAX_VALUE);
        }
        long blocks = (input + TraceRequest.BLOCK - 1) / TraceRequest.BLOCK;
        if (ids.size() != blocks) {
            throw new TraceFormatException(where + ids.size() + " hash ids for input_length " + input + " (" + blocks + " blocks of "
                    + TraceRequest.BLOCK + ")");
        }
        long[] hashes = new long[ids.size()];
        for (int i = 0; i < hashes.length; i++) {
            if (!ids.get(i).canConvertToLong()) {
                throw new TraceFormatException(where + "hash_ids[" + i + "] is not an integer: " + ids.get(i));
            }
            hashes[i] = ids.get(i).asLong();
        }
        return new TraceRequest(line, timestamp, (int) input, (int) output, hashes);
    }

    private static long number(JsonNode node, String field, String where) {
        JsonNode v = node.get(field);
        if (v == null || !v.canConvertToLong()) {
            throw new TraceFormatException(where + field + " missing or not an integer");
        }
        if (v.asLong() < 0) {
            throw new TraceFormatException(where + field + " " + v.asLong() + " is negative");
        }
        return v.asLong();
    }
}
