package org.kvflow.traffic;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * One prefill instance on a modelled clock: requests are served one at a time in the order they
 * arrive, each for its {@link CostModel#prefillSeconds modelled prefill time}, so a request waits
 * while the instance is busy with earlier ones. What it records per request is its time to first
 * token (arrival to the end of its prefill) and its prefill time alone.
 */
public final class ModelledInstance {
    private final CostModel costs;
    private final int cp;
    private final boolean shared;
    private final List<Double> ttft = new ArrayList<>();
    private final List<Double> prefill = new ArrayList<>();
    private double freeAt;
    private double lastArrival;

    /**
     * An idle instance at time 0.
     *
     * @param costs  the cost model
     * @param cp     its CP size
     * @param shared shared KV ({@code true}) or the replicated baseline
     */
    public ModelledInstance(CostModel costs, int cp, boolean shared) {
        this.costs = Objects.requireNonNull(costs, "costs");
        if (cp < 1) {
            throw new IllegalArgumentException("cp " + cp + " must be >= 1");
        }
        this.cp = cp;
        this.shared = shared;
    }

    /**
     * Serves one request after every earlier one.
     *
     * @param arrival    seconds on the modelled clock, not before the previous request's
     * @param seqLen     prompt tokens
     * @param hitTokens  leading tokens the device cache served
     * @param hostTokens the tokens after them the host tier served
     * @return its time to first token, in seconds
     * @throws IllegalArgumentException if {@code arrival} goes back
     */
    public double serve(double arrival, int seqLen, int hitTokens, int hostTokens) {
        if (arrival < lastArrival || Double.isNaN(arrival)) {
            throw new IllegalArgumentException("arrival " + arrival + " s is before the previous request's " + lastArrival + " s");
        }
        lastArrival = arrival;
        double seconds = costs.prefillSeconds(seqLen, hitTokens, hostTokens, cp, shared);
        freeAt = Math.max(freeAt, arrival) + seconds;
        double first = freeAt - arrival;
        ttft.add(first);
        prefill.add(seconds);
        return first;
    }

    /**
     * Work queued ahead of a request arriving at {@code now}.
     *
     * @param now seconds on the modelled clock
     * @return seconds until the instance is free, 0 when it is idle
     */
    public double backlog(double now) {
        return Math.max(0, freeAt - now);
    }

    /** {@return the served requests' modelled times: to first token, and of prefill alone} */
    public ModelledTtft report() {
        return new ModelledTtft(costs.name(), Latencies.of(prefill), freeAt, ttft);
    }
}
