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
 * @param kind        the config backend it implements, or null for the in-process receiver or an engine that is not here
 * @param target      where it sends, as {@code describe()} shows it
 * @param backend     makes the backend of one run from the run's shape
 * @param unavailable why the transfer cannot run here (an engine asked for by name that is missing or does not load), which
 *                    {@code build()} reports; null when it can
 */
public record TransferSpec(@Nullable TransferBackendKind kind, String target, Function<RunShape, TransferBackend> backend,
                           @Nullable String unavailable) implements StageSpec {
    /** Checks that the target and the backend factory are given. */
    public TransferSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(backend, "backend");
    }

    /**
     * A transfer that can run here.
     *
     * @param kind    the config backend it implements, or null for the in-process receiver
     * @param target  where it sends
     * @param backend makes the backend of one run from the run's shape
     */
    public TransferSpec(@Nullable TransferBackendKind kind, String target, Function<RunShape, TransferBackend> backend) {
        this(kind, target, backend, null);
    }

    @Override public String stage() { return "transfer"; }
    @Override public int rank() { return 6; }

    @Override
    public String toString() {
        return "transfer(" + (kind == null ? "in-memory" : kind.wireName()) + " -> " + target + ")";
    }
}
