package org.kvflow.samples.cli;

import org.kvflow.core.json.MalformedInputException;

/** Range checks of the CLI's numeric flags: a value outside is malformed input naming the flag and the range. */
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
}
