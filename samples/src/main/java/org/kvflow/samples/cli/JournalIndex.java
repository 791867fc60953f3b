package org.kvflow.samples.cli;

import org.kvflow.core.json.MalformedInputException;
import org.kvflow.journal.replay.ReplayStart;

/** Where a replay starts, on the command line: a record number (decimal) or an index as printed (hex with {@code 0x}). */
final class JournalIndex {
    private JournalIndex() {}

    static ReplayStart start(String flag, String text) {
        try {
            if (text.startsWith("0x") || text.startsWith("0X")) {
                return ReplayStart.fromIndex(Long.parseUnsignedLong(text.substring(2), 16));
            }
            long record = Long.parseLong(text);
            if (record < 0) {
                throw new MalformedInputException(flag, "a record number is >= 0, was " + record);
            }
            return ReplayStart.fromRecord(record);
        } catch (NumberFormatException e) {
            throw new MalformedInputException(flag, "must be a record number (decimal) or an index (hex with 0x), was \"" + text + "\"");
        }
    }

    static String format(long index) {
        return index < 0 ? "none" : "0x" + Long.toHexString(index);
    }
}
