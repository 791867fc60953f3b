package org.kvflow.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The repository's docs stand alone: every relative link in README.md and docs/ points at a file of this repository. */
class DocsStandAloneTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");

    @Test
    void everyRelativeLinkResolvesInsideTheRepository() throws IOException {
        List<Path> docs = new ArrayList<>(List.of(ROOT.resolve("README.md")));
        try (Stream<Path> files = Files.list(ROOT.resolve("docs"))) {
            files.filter(p -> p.toString().endsWith(".md")).forEach(docs::add);
        }
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (Path doc : docs) {
            Matcher m = LINK.matcher(Files.readString(doc));
            while (m.find()) {
                String target = m.group(1);
                if (target.matches("[a-z]+:.*")) {
                    continue; // http(s), mailto: not a file
                }
                links++;
                Path resolved = doc.getParent().resolve(target).normalize();
                if (!resolved.startsWith(ROOT) || !Files.exists(resolved)) {
                    broken.add(ROOT.relativize(doc) + " -> " + target);
                }
            }
        }
        assertThat(links).as("the docs link to each other").isPositive();
        assertThat(broken).as("links that leave the repository or name a missing file").isEmpty();
    }
}
