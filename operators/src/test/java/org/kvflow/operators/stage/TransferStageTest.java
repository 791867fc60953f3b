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
import org.junit.jupiter.api.Test;
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

    /**
     * A request whose two chunks fail in two batches (a rank lost under the first; the second then
     * works on pages already released) gets one result: the first failure.
     */
    @Test
    void aRequestThatFailsInTwoBatchesGetsOneResult() {
        PrefillBatch written = input();
        PrefillBatch.Entry b = written.entries().get(1);
        IllegalStateException lost = new IllegalStateException("rank 2 is lost");
        IllegalStateException later = new IllegalStateException("allocates on released pages");
        PrefillBatch first = written.withEntries(written.entries().stream().map(e -> e == b ? b.failed(lost) : e).toList());
        PrefillBatch second = PrefillBatch.admitted(first.batchId() + 1, List.of(new PrefillBatch.Entry(b.state(), b.chunkEnd(), 4, true).failed(later)));

        List<PrefillResult> out = Flux.just(first, second).transform(stage()).collectList().block();

        assertThat(out).filteredOn(r -> r.request().id().equals(b.id())).singleElement()
                .isInstanceOfSatisfying(PrefillResult.Failed.class, f -> assertThat(f.error()).isSameAs(lost));
        assertThat(out).filteredOn(r -> r.request().id().equals(written.entries().get(0).id())).singleElement()
                .isInstanceOf(PrefillResult.Completed.class);
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
