package org.kvflow.operators.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Function;
import org.kvflow.operators.group.PrefillBatch;
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
        return withMiddleChunk(batch, 40);
    }

    @Override
    void assertMiddleFailure(Throwable error, PrefillBatch batch) {
        assertThat(error).isInstanceOf(ReservationException.class).hasMessage("request b allocates 10 pages with 3 reserved");
    }
}
