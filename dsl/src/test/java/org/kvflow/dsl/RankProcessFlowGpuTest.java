package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.materialize.QuerySampler;
import reactor.core.publisher.Flux;

/**
 * On the GPU machine: the same flow with each CP rank's pool in a rank process of its own
 * ({@code inRankProcesses()}) and with pools of its own, both on cuda, decodes the same KV for
 * every request, and the processes' pages all come back.
 */
@Tag("cuda")
class RankProcessFlowGpuTest {
    private static PrefillFlow flow(OwnSpec own, MaterializeSpec materialize, DecodeReceiver receiver) {
        return RankProcessFlowTest.flow("cuda", own, materialize, receiver);
    }

    /** Attention read in place through the ranks' virtual view gives the outputs of attention on a gathered view, exactly. */
    @Test
    void readingInPlaceThroughTheVirtualViewGivesTheGatheredViewsAttention() {
        List<PrefillRequest> requests = DslTest.requests(6);
        int ps = DslTest.CONFIG.pageSize();
        QuerySampler sampler = new QuerySampler(3, 7);
        DecodeReceiver gathered = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        List<PrefillResult> a = flow(Ownership.byPageId().pagesPerRank(64).inRankProcesses(), Materialize.fullView().sample(sampler), gathered)
                .build().start(Flux.fromIterable(requests)).results().collectList().block(Duration.ofMinutes(2));
        DecodeReceiver inPlace = new DecodeReceiver(8192, ps, DslTest.MODEL.layout());
        PrefillRun run = flow(Ownership.byPageId().pagesPerRank(64).inRankProcesses(), Materialize.fullView().sample(sampler).readInPlace(), inPlace)
                .build().start(Flux.fromIterable(requests));
        List<PrefillResult> b = run.results().collectList().block(Duration.ofMinutes(2));
        java.util.Map<String, PrefillResult> byId = new java.util.HashMap<>();
        a.forEach(r -> byId.put(r.request().id(), r));
        for (PrefillResult r : b) {
            assertThat(r).isInstanceOf(PrefillResult.Completed.class);
            java.util.Map<Long, float[]> expected = ((PrefillResult.Completed) byId.get(r.request().id())).attention();
            java.util.Map<Long, float[]> got = ((PrefillResult.Completed) r).attention();
            assertThat(got).as(r.request().id()).isNotEmpty().hasSameSizeAs(expected);
            expected.forEach((k, v) -> assertThat(got.get(k)).as("%s %d", r.request().id(), k).isEqualTo(v));
            assertThat(inPlace.digest(r.request().id(), r.request().seqLen())).isEqualTo(gathered.digest(r.request().id(), r.request().seqLen()));
        }
        assertThat(run.pools().leakCheck()).isEmpty();
    }

    @Test
    void aFlowOnRankProcessesDecodesWhatTheInProcessFlowDecodes() {
        RankProcessFlowTest.decodesWhatTheInProcessFlowDecodes("cuda");
    }
}
