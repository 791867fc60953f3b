package org.kvflow.core.json;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Parses JSON and YAML documents into trees for {@link JsonFields}: duplicate keys and trailing
 * content are errors, and every syntax error becomes one {@link MalformedInputException} at
 * {@code $} with its line and column.
 */
public final class JsonDocuments {
    private static final ObjectMapper JSON = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();
    private static final ObjectMapper YAML = YAMLMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .build();

    private JsonDocuments() {}

    /** The mapper for compact JSON output. */
    public static ObjectMapper json() {
        return JSON;
    }

    /** Parses a JSON document. */
    public static JsonNode parseJson(InputStream in) {
        return parse(JSON, in, "JSON");
    }

    /** Parses a JSON file. */
    public static JsonNode parseJson(Path file) {
        return parseFile(file, false);
    }

    /** Parses a file as YAML when its name ends in {@code .yaml}/{@code .yml}, else as JSON. */
    public static JsonNode parseJsonOrYaml(Path file) {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        return parseFile(file, name.endsWith(".yaml") || name.endsWith(".yml"));
    }

    /** The largest YAML document read: configs are a few kilobytes, and the parser slows down sharply on huge scalars. */
    public static final long MAX_YAML_BYTES = 1 << 20;

    private static JsonNode parseFile(Path file, boolean yaml) {
        if (Files.isDirectory(file)) {
            throw new MalformedInputException("$", shown(file) + " is a directory, not a file");
        }
        try (InputStream in = Files.newInputStream(file)) {
            long size = Files.size(file);
            if (yaml && size > MAX_YAML_BYTES) { // the YAML parser's time grows faster than the document: refuse before it starts
                throw new MalformedInputException("$", shown(file) + " is " + size + " bytes; a YAML document is at most " + MAX_YAML_BYTES
                        + " (a config needs far less)");
            }
            return yaml ? parse(YAML, in, "YAML") : parse(JSON, in, "JSON");
        } catch (NoSuchFileException e) {
            throw new MalformedInputException("$", "no such file: " + shown(file));
        } catch (FileSystemException e) { // a name too long, no permission, a file where a folder belongs: the input's fault
            throw new MalformedInputException("$", "cannot read " + shown(file) + ": " + e.getReason());
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + shown(file), e);
        }
    }

    /** {@code file} as a message shows it: whole up to 200 characters, else its start and its length. */
    static String shown(Path file) {
        String name = file.toString();
        return name.length() <= 200 ? name : name.substring(0, 60) + "… (a path of " + name.length() + " characters)";
    }

    private static JsonNode parse(ObjectMapper mapper, InputStream in, String format) {
        try (JsonParser parser = mapper.createParser(in)) {
            JsonNode node = mapper.readTree(parser);
            if (node == null || node.isMissingNode()) {
                throw new MalformedInputException("$", "empty " + format + " document");
            }
            return node;
        } catch (JsonProcessingException e) {
            JsonLocation at = e.getLocation();
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            throw new MalformedInputException("$", "invalid " + format + where + ": " + oneLine(e.getOriginalMessage()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** First line of a parser message, printable ASCII only, at most 160 characters. */
    private static String oneLine(String message) {
        String first = message == null ? "syntax error" : message.lines().findFirst().orElse("syntax error");
        StringBuilder clean = new StringBuilder();
        first.codePoints().limit(160).forEach(c -> clean.append(c >= 0x20 && c < 0x7F ? (char) c : '?'));
        return clean.toString();
    }
}
