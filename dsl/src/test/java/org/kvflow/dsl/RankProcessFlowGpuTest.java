package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;

/**
 * On the GPU machine: the same flow with each CP rank's pool in a rank process of its own
 * ({@code inRankProcesses()}) and with pools of its own, both on cuda, decodes the same KV for
 * every request, and the processes' pages all come back.
 */
@Tag("cuda")
class RankProcessFlowGpuTest {
    private static PrefillFlow flow(OwnSpec own, DecodeReceiver receiver) {
        return KvFlow.prefill(DslTest.CONFIG).model(DslTest.MODEL).device("cuda")
                .admit(Admission.batchGate().maxRequests(4))
                .split(Split.inSeq())
                .own(own)
                .write(Write.ownerRows())
                .materialize(Materialize.fullView())
                .transfer(PdTransfer.inMemory(receiver));
    }

    @Test
    void aFlowOnRankProcessesDecodesWhatTheInProcessFlowDecodes() {
        List<PrefillRequest> requests = DslTest.requests(6);
        int ps = DslTest.CONFIG.pageSize();
        DecodeReceiver own = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        Flux.fromIterable(requests).transform(flow(Ownership.byPageId().pagesPerRank(64), own).build()).blockLast(Duration.ofMinutes(2));
        DecodeReceiver processes = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        PrefillRun run = flow(Ownership.byPageId().pagesPerRank(64).inRankProcesses(), processes).build().start(Flux.fromIterable(requests));
        List<PrefillResult> results = run.results().collectList().block(Duration.ofMinutes(2));
        assertThat(results).hasSize(requests.size()).allSatisfy(r -> assertThat(r).isInstanceOf(PrefillResult.Completed.class));
        for (PrefillRequest r : requests) {
            assertThat(processes.digest(r.id(), r.seqLen())).as(r.id()).isEqualTo(own.digest(r.id(), r.seqLen()));
        }
        assertThat(run.group().leakCheck()).isEmpty();
    }
}
