package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;

/**
 * The same flow with each CP rank's pool in a rank process of its own ({@code inRankProcesses()})
 * and with pools of its own decodes the same KV for every request, and the processes' pages all
 * come back: here on the Java heap (the pipeline reaches the ranks' pools by staged copies), on
 * the GPU machine on cuda ({@link RankProcessFlowGpuTest}, pools opened in place).
 */
class RankProcessFlowTest {
    static PrefillFlow flow(String device, OwnSpec own, MaterializeSpec materialize, DecodeReceiver receiver) {
        return KvFlow.prefill(DslTest.CONFIG).model(DslTest.MODEL).device(device)
                .admit(Admission.batchGate().maxRequests(4))
                .split(Split.inSeq())
                .own(own)
                .write(Write.ownerRows())
                .materialize(materialize)
                .transfer(PdTransfer.inMemory(receiver));
    }

    /** Runs the flow on {@code device} with pools of its own and in rank processes; the same KV, every page back. */
    static void decodesWhatTheInProcessFlowDecodes(String device) {
        List<PrefillRequest> requests = DslTest.requests(6);
        int ps = DslTest.CONFIG.pageSize();
        DecodeReceiver own = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        Flux.fromIterable(requests).transform(flow(device, Ownership.byPageId().pagesPerRank(64), Materialize.fullView(), own).build())
                .blockLast(Duration.ofMinutes(2));
        DecodeReceiver processes = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        PrefillRun run = flow(device, Ownership.byPageId().pagesPerRank(64).inRankProcesses(), Materialize.fullView(), processes).build()
                .start(Flux.fromIterable(requests));
        List<PrefillResult> results = run.results().collectList().block(Duration.ofMinutes(2));
        assertThat(results).hasSize(requests.size()).allSatisfy(r -> assertThat(r).isInstanceOf(PrefillResult.Completed.class));
        for (PrefillRequest r : requests) {
            assertThat(processes.digest(r.id(), r.seqLen())).as(r.id()).isEqualTo(own.digest(r.id(), r.seqLen()));
        }
        assertThat(run.group().leakCheck()).isEmpty();
    }

    @Test
    void aFlowOnRankProcessesDecodesWhatTheInProcessFlowDecodes() {
        decodesWhatTheInProcessFlowDecodes("java");
    }
}
