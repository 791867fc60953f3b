package org.kvflow.samples;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code kvflow} launcher builds only when a module's sources or a pom changed: not for what a
 * build generates under {@code target/}, and not again after a build that left the jar as it was.
 * Runs the real script in a scratch tree with a stand-in {@code mvn} (which, like the jar plugin,
 * leaves an existing jar untouched) and a stand-in {@code java}.
 */
class LauncherTest {
    @TempDir
    Path root;

    private Path script(String name, String body) throws IOException {
        Path p = root.resolve(name);
        Files.createDirectories(p.getParent());
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwxr-xr-x"));
        return p;
    }

    private List<String> builds() throws IOException {
        Path log = root.resolve("mvn.log");
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    private String run() throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder("bash", root.resolve("kvflow").toString(), "demo").redirectErrorStream(true);
        pb.environment().put("PATH", root.resolve("bin") + ":" + System.getenv("PATH"));
        pb.environment().put("KVFLOW_JAVA_HOME", root.resolve("jdk").toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        return out;
    }

    private void age(String path, int secondsAgo) throws IOException {
        Path p = root.resolve(path);
        Files.createDirectories(p.getParent());
        if (!Files.exists(p)) {
            Files.writeString(p, "x");
        }
        Files.setLastModifiedTime(p, FileTime.from(Instant.now().minusSeconds(secondsAgo)));
    }

    @Test
    void buildsOnlyForChangedSourcesAndOnlyOnce() throws Exception {
        Files.copy(Path.of("..", "kvflow"), root.resolve("kvflow"));
        script("jdk/bin/java", "echo \"java $*\"");
        script("bin/mvn", "echo built >> mvn.log; [ -f samples/target/kvflow-cli.jar ] || { mkdir -p samples/target; : > samples/target/kvflow-cli.jar; }");
        age("pom.xml", 100);
        age("core/src/main/java/A.java", 100);

        assertThat(run()).contains("building the CLI").endsWith("-jar " + root.resolve("samples/target/kvflow-cli.jar") + " demo\n");
        assertThat(builds()).as("no jar yet: one build").hasSize(1);
        run();
        assertThat(builds()).as("nothing changed").hasSize(1);

        age("samples/target/kvflow-cli.jar", 60);
        age("bench/target/generated-sources/annotations/Generated.java", 30);
        run();
        assertThat(builds()).as("a source a build generated under target/ is not a change").hasSize(1);

        age("core/src/main/java/A.java", 30);
        run();
        assertThat(builds()).as("a changed module source builds").hasSize(2);
        run();
        assertThat(builds()).as("the jar Maven left as it was is fresh after that build").hasSize(2);
    }
}
