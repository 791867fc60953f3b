package org.kvflow.traffic;

import java.util.List;

/**
 * Time to first token on a modelled clock ({@link ModelledInstance}).
 *
 * @param costModel   the cost model's name
 * @param prefill     the prefill alone, no waiting
 * @param endSeconds  when the last request's prefill ended on the modelled clock
 * @param ttftSeconds each served request's time to first token (arrival to first token, waiting included), in arrival order
 */
public record ModelledTtft(String costModel, Latencies prefill, double endSeconds, List<Double> ttftSeconds) {
    /** Copies the list. */
    public ModelledTtft {
        ttftSeconds = List.copyOf(ttftSeconds);
    }

    /** {@return the percentiles of {@link #ttftSeconds}} */
    public Latencies ttft() {
        return Latencies.of(ttftSeconds);
    }
}
