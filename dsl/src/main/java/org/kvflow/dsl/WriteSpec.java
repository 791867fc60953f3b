package org.kvflow.dsl;

/**
 * The write stage (contract §4.4): each chunk's KV rows are computed with the flow's model on the
 * flow's device and stored on their owner ranks (every rank when replicated). Made by {@link Write}.
 */
public record WriteSpec() implements StageSpec {
    @Override public String stage() { return "write"; }
    @Override public int rank() { return 3; }

    @Override
    public String toString() {
        return "write(owner rows)";
    }
}
