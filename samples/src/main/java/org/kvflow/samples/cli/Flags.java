package org.kvflow.samples.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.kvflow.core.json.MalformedInputException;

/** Checks of the CLI's flags: a value outside its range, or a folder that cannot be made, is malformed input naming the flag. */
final class Flags {
    private Flags() {}

    /**
     * @throws MalformedInputException {@code flag: must be in [min, max], was value} when it is not
     */
    static void within(String flag, long value, long min, long max) {
        if (value < min || value > max) {
            throw new MalformedInputException(flag, "must be in [" + min + ", " + max + "], was " + value);
        }
    }

    /**
     * Makes the folder a flag names, before any work, so that a folder that cannot be made costs nothing.
     *
     * @throws MalformedInputException {@code flag: cannot make the folder dir (why)} when it cannot be made
     */
    static void folder(String flag, Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new MalformedInputException(flag, "cannot make the folder " + dir + " (" + e + ")");
        }
    }

    /** {@return whether {@code dir} is a directory with anything in it: where a command that writes a new journal must not} */
    static boolean holdsEntries(Path dir) throws IOException {
        if (!Files.isDirectory(dir)) {
            return false;
        }
        try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
            return entries.findAny().isPresent();
        }
    }
}
