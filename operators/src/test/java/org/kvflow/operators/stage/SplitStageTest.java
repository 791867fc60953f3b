package org.kvflow.operators.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Function;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.split.SplitOperator;
import reactor.core.publisher.Flux;

/** The split stage on its own; a batch that cannot be split fails all its requests, and the stream goes on. */
class SplitStageTest extends StageScenarios {
    @Override
    Function<Flux<PrefillBatch>, Flux<PrefillBatch>> stage() {
        return new SplitOperator(group);
    }

    @Override
    PrefillBatch input() {
        return admitted();
    }

    @Override
    PrefillBatch breakMiddle(PrefillBatch batch) {
        return withMiddleChunk(batch, -1);
    }

    @Override
    void assertMiddleFailure(Throwable error, PrefillBatch batch) {
        assertThat(error).isInstanceOf(IllegalArgumentException.class).hasMessage("extend length must be >= 0, was -1");
    }

    @Override
    List<String> failedByBreak() {
        return List.of("a", "b", "c");
    }
}
