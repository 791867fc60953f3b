package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.DisaggregationMode;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.split.SplitMode;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.transfer.DecodeReceiver;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.util.context.Context;

public class DslTest {
    public static final CpSharedKvConfig CONFIG = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(16).model(ModelKind.TOY_MLA)
            .sharedKv(true).bsGt1(true).chunkedPrefillSize(128L).transferBackend(TransferBackendKind.TCP).build();
    public static final KvModel MODEL = new KvModel(new NsaDims(16, 40, 8, 24, 12), KvDtype.FP8_E4M3, 1, 3);

    public static List<PrefillRequest> requests(int n) {
        SplittableRandom random = new SplittableRandom(n);
        List<PrefillRequest> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            int[] tokens = new int[1 + random.nextInt(200)];
            for (int t = 0; t < tokens.length; t++) {
                tokens[t] = random.nextInt(100);
            }
            out.add(new PrefillRequest("q" + i, tokens, 8));
        }
        return out;
    }

    public static PrefillFlow flow(DecodeReceiver receiver) {
        return KvFlow.prefill(CONFIG)
                .admit(Admission.batchGate().maxRequests(4))
                .split(Split.inSeq())
                .own(Ownership.byPageId(64, 16))
                .materialize(FullView.copier("java").model(MODEL).sample(new QuerySampler(2, 1)))
                .transfer(PdTransfer.inMemory(receiver));
    }

    @Test
    void buildListsEveryProblemWithItsSetting() {
        CpSharedKvConfig prefill = CONFIG.toBuilder().split(SplitMode.ROUND_ROBIN_SPLIT).disaggregationMode(DisaggregationMode.PREFILL)
                .transferBackend(TransferBackendKind.NIXL).build();
        PrefillFlow bad = KvFlow.prefill(prefill)
                .admit(Admission.batchGate())
                .own(Ownership.byPageId(64, 32))
                .materialize(FullView.copier("cuda"))
                .split(Split.inSeq())
                .admit(Admission.batchGate());
        assertThatThrownBy(bad::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems()).containsExactly(
                "admit: given 2 times; at most once",
                "split after materialize: stages go admit, split, own, materialize, then backup and transfer",
                "admit after split: stages go admit, split, own, materialize, then backup and transfer",
                "config E-CP-3: round-robin CP shared KV is not wired for materialization/PD transfer (split=round-robin-split)",
                "config E-CP-8: toy-mla is for tests; not valid with PD disaggregation (disaggregationMode=prefill)",
                "config E-PD-1: CP shared KV requires a transfer backend with owner filtering + logical-page-position selection (mooncake, tcp) (transferBackend=nixl)",
                "split=in-seq-split but the config's split is round-robin-split",
                "own: pools of page size 32 but the config's page size is 16",
                "materialize=cuda: the CUDA copier is not wired into the operators yet (pools are host memory); use java, auto or opencl[:n]",
                "transfer: required with disaggregationMode=prefill"))
                .hasMessageStartingWith("10 problems: [");
    }

    @Test
    void capsGivenToAdmitAreValidatedLikeConfigCaps() {
        PrefillFlow noGate = KvFlow.prefill(CONFIG.toBuilder().bsGt1(false).build()).admit(Admission.batchGate().maxExtendTokens(100))
                .split(Split.inSeq()).own(Ownership.byPageId(64, 16)).materialize(FullView.copier("java"));
        assertThatThrownBy(noGate::build).isInstanceOfSatisfying(PipelineDefinitionException.class, e -> assertThat(e.problems())
                .anyMatch(p -> p.startsWith("config E-ADM-2"))
                .anyMatch(p -> p.startsWith("config E-ADM-4")));
    }

    @Test
    void flowsAreImmutableAndPipelinesReusable() {
        DecodeReceiver receiver = new DecodeReceiver(4096, 16, MODEL.layout());
        PrefillFlow base = KvFlow.prefill(CONFIG).admit(Admission.batchGate()).split(Split.inSeq());
        PrefillFlow a = base.own(Ownership.byPageId(64, 16)).materialize(FullView.copier("auto").model(MODEL))
                .transfer(PdTransfer.inMemory(receiver));
        assertThat(base.describe()).doesNotContain("own(");
        assertThat(a.describe()).contains("own(byPageId, 64 pages x 16 tokens per rank, prefix cache)");
        PrefillPipeline pipeline = a.build();
        List<PrefillRequest> first = requests(12);
        StepVerifier.create(Flux.fromIterable(first).transform(pipeline))
                .thenConsumeWhile(r -> r instanceof PrefillResult.Completed).verifyComplete();
        List<PrefillRequest> second = requests(12).stream().map(r -> new PrefillRequest("again-" + r.id(), r.tokenIds(), 0)).toList();
        StepVerifier.create(Flux.fromIterable(second).transform(pipeline))
                .thenConsumeWhile(r -> r instanceof PrefillResult.Completed).verifyComplete();
        assertThat(pipeline.lastGroup().leakCheck()).isEmpty();
    }

    @Test
    void metricsCountWhatHappened() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        DecodeReceiver receiver = new DecodeReceiver(4096, 16, MODEL.layout());
        PrefillPipeline pipeline = flow(receiver).metrics(registry).build();
        List<PrefillRequest> reqs = new ArrayList<>(requests(10));
        reqs.add(new PrefillRequest("too-big", new int[5000], 0));
        StepVerifier.create(Flux.fromIterable(reqs).transform(pipeline).contextWrite(Context.of(PrefillPipeline.TRACE_KEY, "t-1")))
                .expectNextCount(11).verifyComplete();
        assertThat(registry.get("kvflow.requests").tag("outcome", "completed").counter().count()).isEqualTo(10);
        assertThat(registry.get("kvflow.rejections").tag("code", "AdmissionRejectedException").counter().count()).isEqualTo(1);
        assertThat(registry.get("kvflow.batches").counter().count()).isPositive();
        assertThat(registry.get("kvflow.transfer.bytes").counter().count()).isPositive();
        assertThat(registry.get("kvflow.transfer.latency").timer().count()).isPositive();
        assertThat(registry.get("kvflow.tokens").counter().count()).isEqualTo(reqs.stream().limit(10).mapToInt(PrefillRequest::seqLen).sum());
        assertThat(registry.find("kvflow.pages.inuse").gauges()).as("unbound after the run").isEmpty();
    }

    @Test
    void cancellationReleasesEverything() {
        DecodeReceiver receiver = new DecodeReceiver(4096, 16, MODEL.layout());
        PrefillPipeline pipeline = flow(receiver).build();
        StepVerifier.create(Flux.fromIterable(requests(30)).transform(pipeline), 2)
                .expectNextCount(2).thenCancel().verify(Duration.ofSeconds(10));
        // the run's stages may still be finishing a batch on boundedElastic: wait for the release
        long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        while (pipeline.lastGroup().liveRequests() > 0 && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
        assertThat(pipeline.lastGroup().liveRequests()).isZero();
        assertThat(pipeline.lastGroup().leakCheck()).isEmpty();
    }
}
