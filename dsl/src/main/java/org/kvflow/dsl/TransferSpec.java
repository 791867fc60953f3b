package org.kvflow.dsl;

import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.operators.transfer.TransferBackend;

/**
 * The PD transfer stage (SPEC §8): which backend kind, and how to get a backend for one run of the
 * pipeline. Made by {@link PdTransfer}.
 */
/**
 * @param kind the config backend it implements, or null for the in-process receiver
 */
public record TransferSpec(@Nullable TransferBackendKind kind, String target, Supplier<TransferBackend> backend) implements StageSpec {
    public TransferSpec {
        Objects.requireNonNull(target, "target");
        Objects.requireNonNull(backend, "backend");
    }

    @Override public String stage() { return "transfer"; }
    @Override public int rank() { return 4; }

    @Override
    public String toString() {
        return "transfer(" + (kind == null ? "in-memory" : kind.wireName()) + " -> " + target + ")";
    }
}
