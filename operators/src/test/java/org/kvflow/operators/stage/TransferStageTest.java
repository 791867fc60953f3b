package org.kvflow.operators.stage;

import org.kvflow.operators.group.FaultyStage;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.Function;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.Workloads;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.operators.transfer.TransferOperator;
import reactor.core.publisher.Flux;

/** The transfer stage on its own: results out, a request whose row is not whole pages fails alone and its decode session is aborted. */
class TransferStageTest extends StageScenarios {
    private final DecodeReceiver decode = new DecodeReceiver(64, 4, MODEL.layout());

    @Override
    Function<Flux<PrefillBatch>, Flux<PrefillResult>> stage() {
        return new TransferOperator(group, new InMemoryTransferBackend(decode));
    }

    @Override
    PrefillBatch input() {
        return Workloads.written(group, requests);
    }

    @Override
    PrefillBatch breakMiddle(PrefillBatch batch) {
        FaultyStage.corruptLoc(batch.entries().get(1).state(), 4, 4);
        return batch;
    }

    @Override
    void assertMiddleFailure(Throwable error, PrefillBatch batch) {
        long loc5 = batch.entries().get(1).state().loc(5);
        assertThat(error).isInstanceOf(PageGroupValidationException.class)
                .hasMessage("pd transfer req b: NON_CONTIGUOUS group 1 offset 1: " + loc5 + " breaks the run (expected first + 1)");
        assertThat(decode.openSessions()).as("b's decode session was aborted; a and c stay until decode releases them").isEqualTo(2);
    }

    @Override
    long prefetch() {
        return 1;
    }

    @Override
    boolean released(RequestState state, List<Object> out) {
        return out.stream().anyMatch(o -> o instanceof PrefillResult.Completed c && c.request().id().equals(state.id()));
    }
}
