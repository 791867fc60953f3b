package org.kvflow.dsl;

import java.util.Objects;
import org.kvflow.operators.materialize.QuerySampler;

/**
 * The materialization stage (contract §7): page-aligned validation of every request's token row, the
 * batch's full view gathered from the owners' pools, and the attention step on it for the query
 * positions {@code sampler} picks (none: validate and gather only). Made by {@link Materialize}.
 *
 * @param sampler     which query positions of each request the attention step runs for
 * @param inPlace     whether the attention step reads the owners' pages in place through one virtual
 *                    view of every rank's pool instead of a gathered view (needs rank processes)
 */
public record MaterializeSpec(QuerySampler sampler, boolean inPlace) implements StageSpec {
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
        return new MaterializeSpec(s, inPlace);
    }

    /**
     * The second materialization mode: no view is gathered; the attention step reads each owner's
     * pages where they lie, through one virtual view of every rank's pool (the rank processes'
     * pools mapped side by side, as SGLang's shared-KV attention reads them). Needs
     * {@code Ownership…inRankProcesses()}.
     *
     * @return the new stage
     */
    public MaterializeSpec readInPlace() {
        return new MaterializeSpec(sampler, true);
    }

    @Override public String stage() { return "materialize"; }
    @Override public int rank() { return 4; }

    @Override
    public String toString() {
        return "materialize(" + (inPlace ? "read in place" : "full view")
                + (sampler.maxPerRequest() == 0 ? "" : ", attention on " + sampler.maxPerRequest() + " positions/request") + ")";
    }
}
