package org.kvflow.core;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** Removal of a folder with everything under it, for the temporary folders kvflow makes. */
public final class FileTrees {
    private FileTrees() {}

    /**
     * Deletes {@code root} and everything under it, deepest first; a root that does not exist is left as it is.
     *
     * @throws IOException naming the first entry that could not be removed
     */
    public static void delete(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> tree = Files.walk(root)) {
            for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
