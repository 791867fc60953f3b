package org.kvflow.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The repository stands alone: every relative link in README.md and docs/ points at a file of this
 * repository, no source or doc names a document kept outside it, and every {@code contract §N}
 * names a section docs/contract.md has.
 */
class DocsStandAloneTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");
    /** Names of the design documents the project was started from, which the repository does not hold (spelled in pieces so this file does not match itself). */
    private static final Pattern OUTSIDE = Pattern.compile(
            String.join("|", "SPEC" + " §", "SPEC" + "\\.md", "STYLE" + "\\.md", "TOOLCHAIN" + "\\.md",
                    "SCENARIO-FORMAT" + "\\.md", "\\.\\./" + "shared"));
    private static final Pattern CONTRACT_REF = Pattern.compile("contract §(\\d+(?:\\.\\d+)?[a-z]?)((?:, §\\d+(?:\\.\\d+)?[a-z]?)*)");
    private static final Pattern SECTION = Pattern.compile("(?m)^#+ §(\\d+(?:\\.\\d+)?[a-z]?) ");

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

    @Test
    void noSourceOrDocNamesADocumentOutsideTheRepository() throws IOException {
        List<String> hits = new ArrayList<>();
        for (Path file : repositoryTexts()) {
            List<String> lines = Files.readAllLines(file);
            for (int i = 0; i < lines.size(); i++) {
                if (OUTSIDE.matcher(lines.get(i)).find()) {
                    hits.add(ROOT.relativize(file) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        assertThat(hits).as("references to documents the repository does not hold").isEmpty();
    }

    @Test
    void everyContractSectionCitedExists() throws IOException {
        Set<String> sections = new HashSet<>();
        Matcher headings = SECTION.matcher(Files.readString(ROOT.resolve("docs/contract.md")));
        while (headings.find()) {
            sections.add(headings.group(1));
        }
        assertThat(sections).as("the contract's numbered sections").contains("1", "3.2", "6.3a", "8.5a", "11.4", "15");
        List<String> missing = new ArrayList<>();
        int citations = 0;
        for (Path file : repositoryTexts()) {
            Matcher m = CONTRACT_REF.matcher(Files.readString(file));
            while (m.find()) {
                List<String> cited = new ArrayList<>(List.of(m.group(1)));
                for (String more : m.group(2).split(", §")) {
                    if (!more.isEmpty()) {
                        cited.add(more);
                    }
                }
                for (String section : cited) {
                    citations++;
                    if (!sections.contains(section)) {
                        missing.add(ROOT.relativize(file) + ": §" + section);
                    }
                }
            }
        }
        assertThat(citations).as("the code cites the contract").isGreaterThan(100);
        assertThat(missing).as("citations of sections docs/contract.md does not have").isEmpty();
    }

    /** The repository's own text files: sources, docs, build files and scripts, outside build output. */
    private static List<Path> repositoryTexts() throws IOException {
        try (Stream<Path> files = Files.walk(ROOT)) {
            return files.filter(Files::isRegularFile)
                    .filter(p -> {
                        Path rel = ROOT.relativize(p);
                        String first = rel.getName(0).toString();
                        return !first.startsWith(".") || first.equals(".ci");
                    })
                    .filter(p -> !ROOT.relativize(p).toString().contains("target/"))
                    .filter(p -> p.toString().matches(".*\\.(java|md|xml|sh|py|yaml|yml|json|txt|cu)$")
                            || p.getFileName().toString().equals("run"))
                    .toList();
        }
    }
}
