package org.kvflow.cuda.graph;

import java.nio.file.Path;
import org.jspecify.annotations.Nullable;

/** Points the twin-module disk cache ({@code kvflow.cuda.cache}) at a test's folder until closed. */
final class ModuleCacheAt implements AutoCloseable {
    private final @Nullable String previous;

    ModuleCacheAt(Path dir) {
        previous = System.setProperty("kvflow.cuda.cache", dir.toString());
    }

    @Override
    public void close() {
        if (previous == null) {
            System.clearProperty("kvflow.cuda.cache");
        } else {
            System.setProperty("kvflow.cuda.cache", previous);
        }
    }
}
