package org.kvflow.samples.cli;

import org.kvflow.core.json.MalformedInputException;

/** Journal indices on the command line: hex with {@code 0x} (as printed) or decimal. */
final class JournalIndex {
    private JournalIndex() {}

    static long parse(String flag, String text) {
        try {
            return text.startsWith("0x") || text.startsWith("0X") ? Long.parseUnsignedLong(text.substring(2), 16) : Long.parseLong(text);
        } catch (NumberFormatException e) {
            throw new MalformedInputException(flag, "must be an index (decimal, or hex with 0x), was \"" + text + "\"");
        }
    }

    static String format(long index) {
        return index < 0 ? "none" : "0x" + Long.toHexString(index);
    }
}
