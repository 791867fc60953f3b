package org.kvflow.dsl;

import org.kvflow.operators.materialize.QuerySampler;

/** Factories for the materialization stage. */
public final class FullView {
    private FullView() {}

    /** Full views gathered by the named backend: {@code java}, {@code cuda}, {@code opencl} or {@code auto}. */
    public static MaterializeSpec copier(String backend) {
        return new MaterializeSpec(backend, null, QuerySampler.NONE);
    }
}
