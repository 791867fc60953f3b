package org.kvflow.samples.byom;

import java.util.ArrayList;
import java.util.List;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.dsl.Admission;
import org.kvflow.dsl.KvFlow;
import org.kvflow.dsl.Materialize;
import org.kvflow.dsl.Ownership;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.Split;
import org.kvflow.dsl.Write;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.materialize.QuerySampler;
import reactor.core.publisher.Flux;

/** Sample: plug a user-written layer ({@link HashLayerModel}) into a CP4 shared-KV flow and print its attention outputs. */
public final class BringYourOwnModel {
    private BringYourOwnModel() {}

    /**
     * Runs two prompts through the flow.
     *
     * @return each prompt's result
     */
    public static List<PrefillResult> run() {
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(16).model(ModelKind.TOY_MLA)
                .kvDtype(KvDtype.BF16).sharedKv(true).bsGt1(true).build();
        HashLayerModel model = new HashLayerModel(KvDtype.BF16, 7);
        DecodeReceiver decode = new DecodeReceiver(256, 16, model.layout());
        PrefillPipeline pipeline = KvFlow.prefill(config).model(model).device("java")
                .admit(Admission.batchGate().maxRequests(4)).split(Split.inSeq()).own(Ownership.byPageId().pagesPerRank(32))
                .write(Write.ownerRows()).materialize(Materialize.fullView().sample(new QuerySampler(2, 1)))
                .transfer(PdTransfer.inMemory(decode)).build();
        List<PrefillRequest> prompts = List.of(new PrefillRequest("greeting", new int[] {5, 17, 17, 256, 3, 99, 4, 8, 15, 16, 23, 42}, 8),
                new PrefillRequest("ramp", java.util.stream.IntStream.range(0, 70).toArray(), 8));
        List<PrefillResult> results = new ArrayList<>();
        Flux.fromIterable(prompts).transform(pipeline).toIterable().forEach(results::add);
        return results;
    }

    public static void main(String[] args) {
        for (PrefillResult result : run()) {
            if (result instanceof PrefillResult.Completed done) {
                done.attention().forEach((key, out) -> System.out.printf("%s position %d: output[0..3] = %.4f %.4f %.4f%n",
                        done.request().id(), key % done.request().seqLen(), out[0], out[1], out[2]));
            } else {
                System.out.println(result.request().id() + ": " + result);
            }
        }
    }
}
