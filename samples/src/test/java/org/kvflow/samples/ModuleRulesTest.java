package org.kvflow.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The module layout docs/architecture.md describes, checked on the sources: every library module
 * declares its boundaries (a module-info.java, which the build compiles with every main source on
 * the module path, so a reach into a package another module does not export fails it), no main
 * class over 500 lines, no interface default that throws {@link UnsupportedOperationException}, and no
 * library module that depends on another (at compile scope) for fewer than three of its types.
 */
class ModuleRulesTest {
    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    /** The build's modules with sources: the libraries and the CLI; {@code bench} measures any module at its own API and is left out. */
    private static final List<String> MODULES = modules();
    /** Dependencies narrower than three types on purpose, each with its reason. */
    private static final Map<String, String> NARROW_ON_PURPOSE = Map.of(
            "operators -> transfer", "the transfer SPI: the stage hands page runs (PageRun) to a backend (TransferBackend), nothing more");
    private static final Pattern PACKAGE = Pattern.compile("(?m)^package ([\\w.]+);");
    private static final Pattern KVFLOW_TYPE = Pattern.compile("\\borg\\.kvflow\\.[\\w.]*?\\.([A-Z]\\w*)");
    private static final Pattern DEPENDENCY = Pattern.compile("(?s)<dependency>(.*?)</dependency>");
    private static final Pattern THROWING_DEFAULT = Pattern.compile("\\bdefault\\s[^;{]*\\([^)]*\\)[^{;]*\\{\\s*throw new UnsupportedOperationException");

    @Test
    void everyLibraryModuleDeclaresItsBoundaries() throws IOException {
        List<String> missing = new ArrayList<>();
        for (String m : MODULES) {
            Path descriptor = ROOT.resolve(m).resolve("src/main/module/module-info.java");
            if (!m.equals("samples") && !(Files.exists(descriptor) && Files.readString(descriptor).contains("module org.kvflow."))) {
                missing.add(m);
            }
        }
        assertThat(missing).as("library modules without a module-info.java (the build compiles it with every source on the module path)")
                .isEmpty();
    }

    @Test
    void noMainClassIsLongerThanFiveHundredLines() throws IOException {
        List<String> long_ = new ArrayList<>();
        for (Path f : mainSources()) {
            long lines = Files.readAllLines(f).size();
            if (lines > 500) {
                long_.add(ROOT.relativize(f) + ": " + lines);
            }
        }
        assertThat(long_).as("main classes over 500 lines").isEmpty();
    }

    @Test
    void noInterfaceDefaultThrowsUnsupportedOperation() throws IOException {
        List<String> hits = new ArrayList<>();
        for (Path f : mainSources()) {
            if (THROWING_DEFAULT.matcher(Files.readString(f)).find()) {
                hits.add(ROOT.relativize(f).toString());
            }
        }
        assertThat(hits).as("interfaces with a default that throws UnsupportedOperationException").isEmpty();
    }

    @Test
    void everyCompileDependencySuppliesThreeTypesOrIsNarrowOnPurpose() throws IOException {
        Map<String, String> moduleOfPackage = new HashMap<>();
        for (String m : MODULES) {
            for (Path f : sources(m)) {
                Matcher p = PACKAGE.matcher(Files.readString(f));
                if (p.find()) {
                    moduleOfPackage.put(p.group(1), m);
                }
            }
        }
        Map<String, Set<String>> narrow = new TreeMap<>();
        int checked = 0;
        for (String m : MODULES) {
            Map<String, Set<String>> used = typesUsed(m, moduleOfPackage);
            for (String dep : compileDependencies(m)) {
                checked++;
                Set<String> types = used.getOrDefault(dep, Set.of());
                String edge = m + " -> " + dep;
                if (types.size() < 3 && !NARROW_ON_PURPOSE.containsKey(edge)) {
                    narrow.put(edge, types);
                }
            }
        }
        assertThat(MODULES).as("the build's modules with sources").contains("core", "pages", "operators", "dsl", "samples").hasSizeGreaterThan(10);
        assertThat(checked).as("compile dependencies between kvflow modules").isGreaterThan(15);
        assertThat(narrow).as("modules that depend on another for fewer than three of its types").isEmpty();
    }

    /** The kvflow types module {@code m}'s main sources name, by the module that holds them (its own left out). */
    private static Map<String, Set<String>> typesUsed(String m, Map<String, String> moduleOfPackage) throws IOException {
        Map<String, Set<String>> used = new HashMap<>();
        for (Path f : sources(m)) {
            Matcher t = KVFLOW_TYPE.matcher(Files.readString(f));
            while (t.find()) {
                String qualified = t.group();
                String pkg = qualified.substring(0, qualified.lastIndexOf('.'));
                String owner = moduleOfPackage.get(pkg);
                if (owner != null && !owner.equals(m)) {
                    used.computeIfAbsent(owner, k -> new TreeSet<>()).add(qualified);
                }
            }
        }
        return used;
    }

    /** The kvflow modules {@code m}'s pom names at compile scope. */
    private static List<String> compileDependencies(String m) throws IOException {
        List<String> deps = new ArrayList<>();
        Matcher d = DEPENDENCY.matcher(Files.readString(ROOT.resolve(m).resolve("pom.xml")));
        while (d.find()) {
            String body = d.group(1);
            Matcher artifact = Pattern.compile("<artifactId>kvflow-([\\w-]+)</artifactId>").matcher(body);
            if (artifact.find() && !body.contains("<scope>") && !body.contains("<type>")) {
                deps.add(artifact.group(1));
            }
        }
        return deps;
    }

    private static List<String> modules() {
        try {
            Matcher m = Pattern.compile("<module>([\\w-]+)</module>").matcher(Files.readString(ROOT.resolve("pom.xml")));
            List<String> found = new ArrayList<>();
            while (m.find()) {
                if (!m.group(1).equals("bench") && Files.isDirectory(ROOT.resolve(m.group(1)).resolve("src/main/java"))) {
                    found.add(m.group(1));
                }
            }
            return List.copyOf(found);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<Path> mainSources() throws IOException {
        List<Path> all = new ArrayList<>();
        for (String m : MODULES) {
            all.addAll(sources(m));
        }
        assertThat(all).as("main sources found").hasSizeGreaterThan(200);
        return all;
    }

    private static List<Path> sources(String module) throws IOException {
        try (Stream<Path> files = Files.walk(ROOT.resolve(module).resolve("src/main/java"))) {
            return files.filter(f -> f.toString().endsWith(".java")).toList();
        }
    }
}
