package org.kvflow.operators.stage;

import org.kvflow.operators.group.FaultyStage;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.function.Function;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.pages.RowOutOfRangeException;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.shard.OwnerWriteOperator;
import reactor.core.publisher.Flux;

/** The write stage on its own; a token whose loc lies beyond its owner's pool fails its request alone. */
class WriteStageTest extends StageScenarios {
    @Override
    Function<Flux<PrefillBatch>, Flux<PrefillBatch>> stage() {
        return new OwnerWriteOperator(group);
    }

    @Override
    PrefillBatch input() {
        return Workloads.owned(group, requests);
    }

    @Override
    PrefillBatch breakMiddle(PrefillBatch batch) {
        FaultyStage.corruptLoc(batch.entries().get(1).state(), 0, 10_000);
        return batch;
    }

    @Override
    void assertMiddleFailure(Throwable error, PrefillBatch batch) {
        long loc = batch.entries().get(1).state().loc(0);
        OwnershipMap ownership = group.ownership();
        assertThat(error).isInstanceOf(RowOutOfRangeException.class)
                .hasMessage("rank " + ownership.ownerOfLoc(loc) + ": row " + ownership.localRow(loc) + " lies outside [0, 128)");
    }
}
