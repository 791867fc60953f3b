package org.kvflow.operators.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Function;
import org.kvflow.operators.PrefillBatch;
import org.kvflow.operators.ReservationException;
import org.kvflow.operators.shard.ShardOperator;
import reactor.core.publisher.Flux;

/** The ownership stage on its own; a chunk larger than its reservation fails alone. */
class OwnStageTest extends StageScenarios {
    @Override
    Function<Flux<PrefillBatch>, Flux<PrefillBatch>> stage() {
        return new ShardOperator(group);
    }

    @Override
    PrefillBatch input() {
        return admitted();
    }

    @Override
    PrefillBatch breakMiddle(PrefillBatch batch) {
        PrefillBatch.Entry b = batch.entries().get(1);
        return batch.withEntries(List.of(batch.entries().get(0), new PrefillBatch.Entry(b.state(), 0, 40, true), batch.entries().get(2)));
    }

    @Override
    void assertMiddleFailure(Throwable error, PrefillBatch batch) {
        assertThat(error).isInstanceOf(ReservationException.class).hasMessage("request b allocates 10 pages with 3 reserved");
    }
}
