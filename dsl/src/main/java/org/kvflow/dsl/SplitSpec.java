package org.kvflow.dsl;

import java.util.Objects;
import org.kvflow.core.split.SplitMode;

/**
 * The CP split stage (contract §5); must agree with the config's {@code split}. Made by {@link Split}.
 *
 * @param mode how a batch's tokens are spread over the CP ranks
 */
public record SplitSpec(SplitMode mode) implements StageSpec {
    /** Checks that the mode is given. */
    public SplitSpec {
        Objects.requireNonNull(mode, "mode");
    }

    @Override public String stage() { return "split"; }
    @Override public int rank() { return 1; }

    @Override
    public String toString() {
        return "split(" + mode.wireName() + ")";
    }
}
