package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.List;
import java.util.Map;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.decode.DecodeReceiver;
import reactor.core.publisher.Flux;

/**
 * {@code device(opencl)}: the write stage's keys and the attention step (indexer scores,
 * top-k, sparse attention) run on OpenCL; attention agrees with the Java run within the kernels'
 * bound and the decode KV, computed on the device, is the same bytes.
 */
class OpenClAttentionTest {
    private static Map<String, PrefillResult.Completed> run(String backend, DecodeReceiver receiver, List<PrefillRequest> requests) {
        PrefillPipeline pipeline = KvFlow.prefill(DslTest.CONFIG).model(DslTest.MODEL).device(backend)
                .admit(Admission.batchGate().maxRequests(4)).split(Split.inSeq()).own(Ownership.byPageId().pagesPerRank(64))
                .write(Write.ownerRows()).materialize(Materialize.fullView().sample(new QuerySampler(3, 5)))
                .transfer(PdTransfer.inMemory(receiver)).build();
        List<PrefillResult> results = Flux.fromIterable(requests).transform(pipeline).collectList().block();
        assertThat(results).allMatch(r -> r instanceof PrefillResult.Completed);
        return results.stream().map(r -> (PrefillResult.Completed) r)
                .collect(java.util.stream.Collectors.toMap(c -> c.request().id(), c -> c));
    }

    @Tag("opencl")
    @Test
    void attentionOnOpenClAgreesWithJavaAndTheDecodeKvIsIdentical() {
        Device cl = Devices.openCl().orElse(null);
        assumeTrue(cl != null, "no OpenCL device (install pocl-opencl-icd): " + Devices.all());
        List<PrefillRequest> requests = DslTest.requests(8);
        DecodeReceiver javaDecode = new DecodeReceiver(4096, 16, DslTest.MODEL.layout());
        DecodeReceiver clDecode = new DecodeReceiver(4096, 16, DslTest.MODEL.layout());
        Map<String, PrefillResult.Completed> java = run("java", javaDecode, requests);
        Map<String, PrefillResult.Completed> opencl = run(cl.selector(), clDecode, requests);
        int compared = 0;
        for (PrefillRequest r : requests) {
            Map<Long, float[]> expected = java.get(r.id()).attention();
            Map<Long, float[]> actual = opencl.get(r.id()).attention();
            assertThat(actual.keySet()).isEqualTo(expected.keySet());
            for (Map.Entry<Long, float[]> e : expected.entrySet()) {
                float[] got = actual.get(e.getKey());
                for (int c = 0; c < got.length; c++) {
                    assertThat(got[c]).as("%s output %d[%d]", r.id(), e.getKey(), c).isCloseTo(e.getValue()[c], Offset.offset(2e-5f));
                    compared++;
                }
            }
            assertThat(clDecode.digest(r.id(), r.seqLen())).isEqualTo(javaDecode.digest(r.id(), r.seqLen()));
        }
        assertThat(compared).isGreaterThan(0);
    }
}
