package org.kvflow.samples;

import java.util.List;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.dsl.Admission;
import org.kvflow.dsl.KvFlow;
import org.kvflow.dsl.Materialize;
import org.kvflow.dsl.Ownership;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.Split;
import org.kvflow.dsl.Write;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.decode.DecodeReceiver;
import reactor.core.publisher.Flux;
import org.kvflow.model.synthetic.SyntheticModel;

/** Sample: compose a CP4 shared-KV prefill pipeline with the DSL and run three prompts through it. */
public final class ComposePipeline {
    private ComposePipeline() {}

    public static void main(String[] args) {
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder()
                .cpSize(4).pageSize(16).model(ModelKind.TOY_MLA).kvDtype(KvDtype.FP8_E4M3).sharedKv(true).bsGt1(true).build();
        SyntheticModel model = SyntheticModel.builder().dims(new NsaDims(16, 64, 16, 32, 32)).dtype(KvDtype.FP8_E4M3).layers(2).seed(1).build();
        DecodeReceiver decode = new DecodeReceiver(1024, 16, model.layout());

        PrefillPipeline pipeline = KvFlow.prefill(config).model(model).device("java")
                .admit(Admission.batchGate().maxRequests(8))
                .split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(128))
                .write(Write.ownerRows())
                .materialize(Materialize.fullView())
                .transfer(PdTransfer.inMemory(decode))
                .build();
        System.out.print(pipeline.describe());

        List<PrefillRequest> prompts = List.of(
                new PrefillRequest("hello", new int[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17}, 32),
                new PrefillRequest("short", new int[] {42}, 8),
                new PrefillRequest("long", new int[300], 64));
        for (PrefillResult result : Flux.fromIterable(prompts).transform(pipeline).toIterable()) {
            System.out.println(result.request().id() + " -> " + result.getClass().getSimpleName()
                    + ", decode ready: " + decode.isReady(result.request().id()));
        }
    }
}
