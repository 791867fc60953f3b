package org.kvflow.operators.stage;

import org.kvflow.operators.group.FaultyStage;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Function;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.MaterializeOperator;
import org.kvflow.operators.materialize.QuerySampler;
import reactor.core.publisher.Flux;

/** The materialization stage on its own; a request whose token row is not whole pages fails alone, the others get attention. */
class MaterializeStageTest extends StageScenarios {
    @Override
    Function<Flux<PrefillBatch>, Flux<PrefillBatch>> stage() {
        return new MaterializeOperator(group, new QuerySampler(2, 1));
    }

    @Override
    PrefillBatch input() {
        return Workloads.written(group, requests);
    }

    @Override
    PrefillBatch breakMiddle(PrefillBatch batch) {
        FaultyStage.corruptLoc(batch.entries().get(1).state(), 5, 1);
        return batch;
    }

    @Override
    void assertMiddleFailure(Throwable error, PrefillBatch batch) {
        long loc5 = batch.entries().get(1).state().loc(5);
        assertThat(error).isInstanceOf(PageGroupValidationException.class)
                .hasMessage("materialize req b: NON_CONTIGUOUS group 1 offset 1: " + loc5 + " breaks the run (expected first + 1)");
    }
}
