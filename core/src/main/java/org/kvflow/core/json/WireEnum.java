package org.kvflow.core.json;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * An enum whose constants have a fixed spelling on the wire (JSON, YAML, CLI flags), e.g.
 * {@code in-seq-split} or {@code fp8_e4m3}. The sets are closed: any other spelling is an error.
 * By default the spelling is the constant's name in lower case; enums spelled with dashes
 * override {@link #wireName()}.
 */
public interface WireEnum {
    /** The constant's spelling in docs/scenario-format.md. */
    default String wireName() {
        return ((Enum<?>) this).name().toLowerCase(Locale.ROOT);
    }

    /** The constant spelled {@code name}, if any. */
    static <E extends Enum<E> & WireEnum> Optional<E> parse(Class<E> type, String name) {
        for (E e : type.getEnumConstants()) {
            if (e.wireName().equals(name)) {
                return Optional.of(e);
            }
        }
        return Optional.empty();
    }

    /** Every spelling of {@code type}, in declaration order. */
    static <E extends Enum<E> & WireEnum> List<String> names(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(WireEnum::wireName).toList();
    }
}
