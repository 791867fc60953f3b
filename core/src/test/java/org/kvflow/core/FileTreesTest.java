package org.kvflow.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileTreesTest {
    @TempDir
    Path dir;

    @Test
    void aFolderGoesWithEverythingUnderItAndItsNeighboursStay() throws Exception {
        Path root = Files.createDirectories(dir.resolve("root/a/b"));
        Files.writeString(root.resolve("leaf"), "x");
        Files.writeString(dir.resolve("root/a/file"), "y");
        Files.createDirectories(dir.resolve("root/empty"));
        Path neighbour = Files.writeString(dir.resolve("neighbour"), "z");

        FileTrees.delete(dir.resolve("root"));

        assertThat(dir.resolve("root")).doesNotExist();
        assertThat(neighbour).hasContent("z");
    }

    @Test
    void aSingleFileAndAMissingRootAreTakenAsTheyAre() throws Exception {
        Path file = Files.writeString(dir.resolve("one"), "x");
        FileTrees.delete(file);
        assertThat(file).doesNotExist();
        FileTrees.delete(dir.resolve("never-made"));
        assertThat(dir).isEmptyDirectory();
    }
}
