package org.kvflow.dsl;

import org.kvflow.operators.materialize.QuerySampler;

/** Factories for the materialization stage. */
public final class Materialize {
    private Materialize() {}

    /**
     * Full views of each batch's referenced pages, without an attention check.
     *
     * @return the stage; {@link MaterializeSpec#sample} adds sampled attention outputs
     */
    public static MaterializeSpec fullView() {
        return new MaterializeSpec(QuerySampler.NONE, false);
    }
}
