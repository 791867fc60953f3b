package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;

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
import reactor.test.StepVerifier;

/**
 * A flow with no transfer stage ends in a local receiver that frees a request when its result
 * passes downstream: a slow subscriber, with the pools already holding the next batches, must
 * not make it refuse anything.
 */
class DefaultReceiverTest {
    private static final CpSharedKvConfig CONFIG = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(2).pageSize(64).model(ModelKind.NSA_MLA)
            .sharedKv(true).bsGt1(true).build();

    @Test
    void aSlowSubscriberNeverMakesTheLocalReceiverRefuse() {
        List<PrefillRequest> requests = new ArrayList<>();
        for (int i = 0; i < 24; i++) {
            int[] tokens = new int[512]; // 8 pages; a batch of 4 fills the 32 pages of the pools
            Arrays.setAll(tokens, t -> 1_000 * requests.size() + t);
            requests.add(new PrefillRequest("r" + i, tokens, 1));
        }
        PrefillPipeline pipeline = KvFlow.prefill(CONFIG).admit(Admission.batchGate().maxRequests(4)).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(16).prefixCaching(false)).materialize(Materialize.fullView()).build();
        StepVerifier.create(Flux.fromIterable(requests).transform(pipeline), 1)
                .expectNextMatches(r -> r instanceof PrefillResult.Completed)
                .thenAwait(Duration.ofMillis(300)) // the pipeline runs ahead of the one result asked for
                .thenRequest(Long.MAX_VALUE)
                .recordWith(ArrayList::new)
                .thenConsumeWhile(r -> true)
                .consumeRecordedWith(rest -> assertThat(rest).hasSize(23)
                        .allSatisfy(r -> assertThat(r).as(r.request().id()).isInstanceOf(PrefillResult.Completed.class)))
                .expectComplete()
                .verify(Duration.ofSeconds(30));
    }
}
