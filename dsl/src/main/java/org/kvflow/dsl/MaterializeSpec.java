package org.kvflow.dsl;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.materialize.QuerySampler;

/**
 * The materialization stage (SPEC §7): the backend that gathers full views ({@code java},
 * {@code cuda}, {@code opencl}, {@code auto}), the model whose KV is computed (null: plan pages
 * only) and which query positions the attention step checks. Made by {@link FullView}.
 */
public record MaterializeSpec(String backend, @Nullable KvModel model, QuerySampler sampler) implements StageSpec {
    public MaterializeSpec {
        Objects.requireNonNull(backend, "backend");
        Objects.requireNonNull(sampler, "sampler");
    }

    public MaterializeSpec model(KvModel m) {
        return new MaterializeSpec(backend, Objects.requireNonNull(m, "model"), sampler);
    }

    public MaterializeSpec sample(QuerySampler s) {
        return new MaterializeSpec(backend, model, s);
    }

    @Override public String stage() { return "materialize"; }
    @Override public int rank() { return 3; }

    @Override
    public String toString() {
        return "materialize(" + backend + (model == null ? ", pages only" : ", " + model.layout().shape().layers() + " layers "
                + model.dtype().wireName()) + (sampler.maxPerRequest() == 0 ? "" : ", attention on " + sampler.maxPerRequest() + " positions/request") + ")";
    }
}
