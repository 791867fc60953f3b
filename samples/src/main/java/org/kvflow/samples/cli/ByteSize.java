package org.kvflow.samples.cli;

import java.util.Locale;
import picocli.CommandLine;

/**
 * A size on the command line: bytes, or a number with a unit: {@code KiB MiB GiB TiB} (powers of
 * 1024) or {@code KB MB GB TB} (powers of 1000), case-insensitive, e.g. {@code 40GiB}.
 */
final class ByteSize implements CommandLine.ITypeConverter<Long> {
    private static final String[] BINARY = {"kib", "mib", "gib", "tib"};
    private static final String[] DECIMAL = {"kb", "mb", "gb", "tb"};

    @Override
    public Long convert(String text) {
        String t = text.strip().toLowerCase(Locale.ROOT);
        long scale = 1;
        for (int i = 0; i < BINARY.length; i++) {
            if (t.endsWith(BINARY[i])) {
                scale = 1L << (10 * (i + 1));
                t = t.substring(0, t.length() - 3).strip();
                break;
            }
            if (t.endsWith(DECIMAL[i])) {
                scale = (long) Math.pow(1000, i + 1);
                t = t.substring(0, t.length() - 2).strip();
                break;
            }
        }
        if (scale == 1 && t.endsWith("b")) {
            t = t.substring(0, t.length() - 1).strip();
        }
        try {
            return Math.multiplyExact(Long.parseLong(t), scale);
        } catch (NumberFormatException | ArithmeticException e) {
            throw new CommandLine.TypeConversionException("must be a size: bytes, or a number with KiB, MiB, GiB, TiB (or KB, MB, GB, TB), was \""
                    + text + "\"");
        }
    }
}
