package org.kvflow.deepseek;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.InputStream;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.kvflow.core.model.KvDtype;

/**
 * The small-width V3.2 layer's weights and the outputs torch computed from them on the H200
 * ({@code bench/device/v32_reference.py golden}): 40 tokens, two layers, every position a query.
 */
final class Golden {
    static final Path WEIGHTS = resource("v32/tiny.safetensors");
    static final JsonNode DOC = read(resource("v32/tiny-golden.json"));

    private Golden() {}

    static V32Model model(KvDtype dtype) {
        return V32Model.read(WEIGHTS, V32Config.TINY, 2, dtype);
    }

    static int[] tokens() {
        JsonNode t = DOC.get("tokens");
        int[] ids = new int[t.size()];
        for (int i = 0; i < ids.length; i++) {
            ids[i] = t.get(i).asInt();
        }
        return ids;
    }

    static float[] floats(int layer, String part) {
        JsonNode a = DOC.get("layers").get(layer).get(part);
        float[] v = new float[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (float) a.get(i).asDouble();
        }
        return v;
    }

    static int[] topk(int layer, int query) {
        JsonNode a = DOC.get("layers").get(layer).get("topk").get(query);
        int[] v = new int[a.size()];
        for (int i = 0; i < v.length; i++) {
            v[i] = a.get(i).asInt();
        }
        return v;
    }

    /** The resource as a file: itself from a build directory, a temporary copy from a jar (the GPU machine's test jars). */
    private static Path resource(String name) {
        URL url = Golden.class.getClassLoader().getResource(name);
        if (url == null) {
            throw new IllegalStateException("no test resource " + name);
        }
        try {
            if ("file".equals(url.getProtocol())) {
                return Path.of(url.toURI());
            }
            Path copy = Files.createTempFile("v32-", "-" + name.substring(name.lastIndexOf('/') + 1));
            copy.toFile().deleteOnExit();
            try (InputStream in = url.openStream()) {
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            }
            return copy;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (URISyntaxException e) {
            throw new IllegalStateException("test resource " + name + " at " + url, e);
        }
    }

    private static JsonNode read(Path p) {
        try {
            return new ObjectMapper().readTree(p.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
