package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.ModelKind;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;

/** A pages-only flow with a host tier: a prompt pushed out of the device cache by others comes back from the tier, counted per request and per run. */
class HostTierFlowTest {
    private static final CpSharedKvConfig CONFIG = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(2).pageSize(64).model(ModelKind.NSA_MLA)
            .sharedKv(true).bsGt1(true).build();

    private static PrefillRequest prompt(String id, int first, int tokens) {
        int[] ids = new int[tokens];
        Arrays.setAll(ids, i -> first + i);
        return new PrefillRequest(id, ids, 1);
    }

    /** A 1,024-token prompt, eight others of 1,024 that push it out of a 16-page-a-rank pool, then the first again. */
    private static List<PrefillRequest> workload() {
        List<PrefillRequest> requests = new ArrayList<>();
        requests.add(prompt("first", 0, 1_024));
        for (int i = 1; i <= 8; i++) {
            requests.add(prompt("other-" + i, 100_000 * i, 1_024));
        }
        requests.add(prompt("again", 0, 1_024));
        return requests;
    }

    private static PrefillPipeline pipeline(OwnSpec own) {
        return KvFlow.prefill(CONFIG).admit(Admission.batchGate().maxRequests(1)).split(Split.inSeq()).own(own).materialize(Materialize.fullView())
                .build();
    }

    @Test
    void aPromptTheDeviceCacheLostIsLoadedFromTheTierInsteadOfComputed() {
        PrefillPipeline withTier = pipeline(Ownership.byPageId().pagesPerRank(16).hostTier(256));
        PrefillRun run = withTier.start(Flux.fromIterable(workload()));
        List<PrefillResult> results = run.results().collectList().block(Duration.ofSeconds(30));
        PrefillResult.Completed again = (PrefillResult.Completed) results.getLast();
        assertThat(again.request().id()).isEqualTo("again");
        assertThat(again.hostHitTokens()).as("its pages came back from the tier, all but the last").isEqualTo(1_024 - 64);
        assertThat(again.prefixHitTokens()).as("every hit of it was a host hit").isEqualTo(again.hostHitTokens());
        long hostHits = results.stream().mapToLong(r -> ((PrefillResult.Completed) r).hostHitTokens()).sum();
        assertThat(run.pools().hostTokensServed()).isEqualTo(hostHits);
        assertThat(run.pools().leakCheck()).isEmpty();

        List<PrefillResult> without = pipeline(Ownership.byPageId().pagesPerRank(16)).apply(Flux.fromIterable(workload())).collectList()
                .block(Duration.ofSeconds(30));
        assertThat(((PrefillResult.Completed) without.getLast()).prefixHitTokens()).as("without the tier it is computed again").isZero();
    }

    @Test
    void aTierNeedsAPrefixCacheAPagesOnlyFlowAndAPage() {
        assertThatThrownBy(() -> pipeline(Ownership.byPageId().pagesPerRank(16).prefixCaching(false).hostTier(8)))
                .isInstanceOf(PipelineDefinitionException.class)
                .hasMessage("1 problem: [own: hostTier takes the device prefix cache's evicted pages, but prefix caching is off]");
        assertThatThrownBy(() -> pipeline(Ownership.byPageId().pagesPerRank(16).hostTier(-2))).isInstanceOf(PipelineDefinitionException.class)
                .hasMessage("1 problem: [own: hostTier=-2 pages; give it at least one]");
        assertThatThrownBy(() -> KvFlow.prefill(DslTest.CONFIG).model(DslTest.MODEL).admit(Admission.batchGate()).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(64).hostTier(8)).write(Write.ownerRows()).materialize(Materialize.fullView()).build())
                .isInstanceOf(PipelineDefinitionException.class)
                .hasMessage("1 problem: [own: hostTier plans pages only; a flow with a model loads host pages from a journal (warmStartFrom)]");
    }
}
