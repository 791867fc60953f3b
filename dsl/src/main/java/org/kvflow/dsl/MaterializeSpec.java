package org.kvflow.dsl;

import java.util.Objects;
import org.kvflow.operators.materialize.QuerySampler;

/**
 * The materialization stage (SPEC §7): page-aligned validation of every request's token row, the
 * batch's full view gathered from the owners' pools, and the attention step on it for the query
 * positions {@code sampler} picks (none: validate and gather only). Made by {@link Materialize}.
 *
 * @param sampler which query positions of each request the attention step runs for
 */
public record MaterializeSpec(QuerySampler sampler) implements StageSpec {
    /** Checks that the sampler is given. */
    public MaterializeSpec {
        Objects.requireNonNull(sampler, "sampler");
    }

    /**
     * The same stage with the attention step run for sampled positions.
     *
     * @param s picks the positions
     * @return the new stage
     */
    public MaterializeSpec sample(QuerySampler s) {
        return new MaterializeSpec(s);
    }

    @Override public String stage() { return "materialize"; }
    @Override public int rank() { return 4; }

    @Override
    public String toString() {
        return "materialize(full view" + (sampler.maxPerRequest() == 0 ? "" : ", attention on " + sampler.maxPerRequest() + " positions/request") + ")";
    }
}
