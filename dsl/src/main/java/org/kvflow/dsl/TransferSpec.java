package org.kvflow.dsl;

import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.transfer.RunShape;
import org.kvflow.transfer.TransferBackend;

/**
 * The PD transfer stage (contract §8): which backend kind, where it sends, and how to make a backend
 * for one run of the pipeline from the run's shape. Made by {@link PdTransfer}.
 *
 * @param kind    the config backend it implements, or null for the in-process receiver
 * @param target  where it sends, as {@code describe()} shows it
 * @param backend makes the backend of one run from the run's shape
 */
public record TransferSpec(@Nullable TransferBackendKind kind, String target, Function<RunShape, TransferBackend> backend) implements StageSpec {
    /** Checks that the target and the backend factory are given. */
    public TransferSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(backend, "backend");
    }

    @Override public String stage() { return "transfer"; }
    @Override public int rank() { return 6; }

    @Override
    public String toString() {
        return "transfer(" + (kind == null ? "in-memory" : kind.wireName()) + " -> " + target + ")";
    }
}
