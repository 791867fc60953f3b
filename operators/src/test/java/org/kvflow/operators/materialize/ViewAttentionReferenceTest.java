package org.kvflow.operators.materialize;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.kernels.nsa.AttentionKernels;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.IndexerKernels;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import reactor.core.publisher.Flux;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * The attention a pipeline reports equals, bit for bit on the {@code java} device, attention
 * computed one query at a time from the synthetic layer's rows (encoded as the pool stores them):
 * indexer scores against every key {@code j ≤ t}, the top-k, sparse attention over those keys
 * (contract §3.8 steps 6–7). Shared-equals-replicated cannot see an error common to both layouts; this can.
 */
class ViewAttentionReferenceTest {
    @ParameterizedTest
    @EnumSource(KvDtype.class)
    void reportedAttentionIsTheSingleQueryReference(KvDtype dtype) {
        CpSharedKvConfig config = Workloads.sharedBsGt1(2, 16, 4, 64L);
        SyntheticModel model = new SyntheticModel(Workloads.TOY, dtype, 2, 11);
        List<PrefillRequest> requests = Workloads.requests(5, 6, 120, 40);
        Workloads.Rig rig = Workloads.rig(config, PoolLayout.SHARED, 200, model, true, new QuerySampler(5, 3), 400);
        List<PrefillResult> results = new ArrayList<>();
        Flux.fromIterable(requests).transform(rig.pipeline()).doOnNext(results::add).blockLast(Duration.ofMinutes(1));
        int checked = 0;
        for (PrefillResult result : results) {
            assertThat(result).isInstanceOf(PrefillResult.Completed.class);
            PrefillResult.Completed done = (PrefillResult.Completed) result;
            for (Map.Entry<Long, float[]> e : done.attention().entrySet()) {
                int seqLen = done.request().seqLen();
                int layer = (int) (e.getKey() / seqLen);
                int t = (int) (e.getKey() % seqLen);
                assertThat(e.getValue()).as("attention of %s at %d, layer %d", done.request().id(), t, layer)
                        .containsExactly(reference(model, model.layer(layer), done.request(), t));
                checked++;
            }
        }
        assertThat(checked).as("sampled outputs compared").isGreaterThan(20);
    }

    private static float[] reference(SyntheticModel model, SyntheticNsaLayer layer, PrefillRequest request, int t) {
        NsaDims dims = model.dims();
        KvLayout layout = model.layout();
        int width = dims.latent() + dims.rope();
        float[] keys = new float[(t + 1) * width];
        float[] scores = new float[t + 1];
        byte[] row = new byte[layout.mlaRowBytes()];
        byte[] indexPage = new byte[(int) layout.indexPageBytes(1)];
        float[] key = new float[width];
        float[] indexKey = new float[dims.index()];
        SyntheticNsaLayer.TokenQuery query = layer.query(request.tokenId(t), t);
        for (int j = 0; j <= t; j++) {
            SyntheticNsaLayer.TokenKv kv = layer.key(request.tokenId(j), j);
            MlaRows.encode(kv.latent(), kv.rope(), layout, row, 0);
            MlaRows.decodeKey(row, 0, layout, key);
            System.arraycopy(key, 0, keys, j * width, width);
            IndexRows.encode(kv.indexKey(), 1, 0, indexPage, 0);
            IndexRows.decode(indexPage, 0, 1, 0, indexKey);
            scores[j] = IndexerKernels.dot(query.indexQuery(), indexKey, 0, dims.index());
        }
        int[] selected = IndexerKernels.topK(scores, t + 1, dims.topk());
        float[] chosen = new float[selected.length * width];
        for (int s = 0; s < selected.length; s++) {
            System.arraycopy(keys, selected[s] * width, chosen, s * width, width);
        }
        float[] out = new float[dims.latent()];
        AttentionKernels.attend(query.q(), chosen, selected.length, dims.latent(), out);
        return out;
    }
}
