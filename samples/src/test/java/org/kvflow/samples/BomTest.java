package org.kvflow.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/** The BOM names every library module, at the parent's version; the programs (samples, bench) are not in it. */
class BomTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static List<String> all(Pattern p, String text) {
        Matcher m = p.matcher(text);
        return m.results().map(r -> r.group(1)).toList();
    }

    private static String version(String pom) {
        String head = pom.substring(0, pom.indexOf("<dependencyManagement>") > 0 ? pom.indexOf("<dependencyManagement>") : pom.length());
        head = head.replaceAll("(?s)<parent>.*?</parent>", "");
        return all(Pattern.compile("<version>([^<]+)</version>"), head).getFirst();
    }

    @Test
    void theBomListsEveryLibraryModuleAtTheParentsVersion() throws IOException {
        String parent = Files.readString(ROOT.resolve("pom.xml"));
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"));
        List<String> libraries = all(Pattern.compile("<module>([^<]+)</module>"), parent).stream()
                .filter(m -> !List.of("bom", "samples", "bench").contains(m))
                .map(m -> all(Pattern.compile("<artifactId>([^<]+)</artifactId>"),
                        uncheckedRead(ROOT.resolve(m).resolve("pom.xml")).replaceAll("(?s)<parent>.*?</parent>", "")).getFirst())
                .toList();
        assertThat(libraries).contains("kvflow-core", "kvflow-dsl");
        assertThat(all(Pattern.compile("<artifactId>(kvflow-[^<]+)</artifactId>"), bom)).containsExactlyInAnyOrderElementsOf(
                java.util.stream.Stream.concat(libraries.stream(), java.util.stream.Stream.of("kvflow-bom")).toList());
        assertThat(version(bom)).isEqualTo(version(parent));
    }

    private static String uncheckedRead(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
