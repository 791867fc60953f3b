package org.kvflow.deepseek;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.dsl.Admission;
import org.kvflow.dsl.KvFlow;
import org.kvflow.dsl.Materialize;
import org.kvflow.dsl.OwnSpec;
import org.kvflow.dsl.Ownership;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.Split;
import org.kvflow.dsl.Write;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.materialize.QuerySampler;
import reactor.core.publisher.Flux;

/** The small-width V3.2 layer through a CP4 flow: shared KV gives the replicated baseline's outputs bit for bit, and torch's within tolerance. */
class V32FlowTest {
    private static final CpSharedKvConfig CONFIG = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(16).model(ModelKind.TOY_MLA)
            .sharedKv(true).bsGt1(true).chunkedPrefillSize(16L).kvDtype(KvDtype.FP8_E4M3).build();

    private static Map<Long, float[]> run(V32Model model, OwnSpec own, PrefillRequest request) {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, model.layout());
        List<PrefillResult> results = KvFlow.prefill(CONFIG).model(model).admit(Admission.batchGate().maxRequests(2)).split(Split.inSeq())
                .own(own.pagesPerRank(16)).write(Write.ownerRows()).materialize(Materialize.fullView().sample(new QuerySampler(6, 11)))
                .transfer(PdTransfer.inMemory(receiver)).build().apply(Flux.just(request)).collectList().block(Duration.ofMinutes(1));
        assertThat(results).singleElement().isInstanceOf(PrefillResult.Completed.class);
        return new HashMap<>(((PrefillResult.Completed) results.getFirst()).attention());
    }

    @Test
    void sharedEqualsReplicatedExactlyAndBothMatchTorch() {
        V32Model model = Golden.model(KvDtype.FP8_E4M3);
        PrefillRequest request = new PrefillRequest("v32", Golden.tokens(), 0);
        Map<Long, float[]> shared = run(model, Ownership.byPageId(), request);
        Map<Long, float[]> replicated = run(model, Ownership.replicated(), request);
        assertThat(shared).isNotEmpty().hasSameSizeAs(replicated);
        int hidden = V32Config.TINY.hidden();
        int seqLen = request.seqLen();
        for (Map.Entry<Long, float[]> e : shared.entrySet()) {
            int layer = (int) (e.getKey() / seqLen);
            int t = (int) (e.getKey() % seqLen);
            assertThat(e.getValue()).as("layer %d query %d: shared == replicated", layer, t).containsExactly(replicated.get(e.getKey()));
            float[] torch = Golden.floats(layer, "out");
            float max = 0;
            for (float v : torch) {
                max = Math.max(max, Math.abs(v));
            }
            V32AgainstTorchTest.assertClose(e.getValue(), java.util.Arrays.copyOfRange(torch, t * hidden, (t + 1) * hidden),
                    V32AgainstTorchTest.OUT_TOLERANCE * max, "layer " + layer + " query " + t + " through the flow");
        }
    }
}
