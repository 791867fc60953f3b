package org.kvflow.operators.materialize;

import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.nsa.AttentionKernels;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.IndexerKernels;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.RequestState;

/**
 * The attention step on a full view (SPEC §3.8 steps 6–7): for each sampled query position
 * {@code t} of a request, indexer scores against every key {@code j ≤ t} read from the view, the
 * top-k positions, and sparse attention over their dequantised rows.
 */
final class ViewAttention {
    private ViewAttention() {}

    static void run(KvModel model, FullView view, long[] pageTable, RequestState state, long[] positions) {
        if (positions.length == 0) {
            return;
        }
        NsaDims dims = model.dims();
        KvLayout layout = model.layout();
        int ps = view.store().pageSize();
        int width = dims.latent() + dims.rope();
        int keyCount = (int) positions[positions.length - 1] + 1;
        float[] indexKeys = new float[keyCount * dims.index()];
        float[] keys = new float[keyCount * width];
        float[] indexRow = new float[dims.index()];
        float[] keyRow = new float[width];
        for (int l = 0; l < model.layerCount(); l++) {
            byte[] mla = view.store().mla(l);
            byte[] index = view.store().index(l);
            for (int j = 0; j < keyCount; j++) {
                int k = view.viewPage(pageTable[j / ps]);
                IndexRows.decode(index, k * view.store().indexPageBytes(), ps, j % ps, indexRow);
                System.arraycopy(indexRow, 0, indexKeys, j * dims.index(), dims.index());
                MlaRows.decodeKey(mla, (k * ps + j % ps) * layout.mlaRowBytes(), layout, keyRow);
                System.arraycopy(keyRow, 0, keys, j * width, width);
            }
            SyntheticNsaLayer layer = model.layer(l);
            float[] scores = new float[keyCount];
            for (long t : positions) {
                SyntheticNsaLayer.TokenQuery query = layer.query(state.request().tokenId((int) t), t);
                int count = (int) t + 1;
                for (int j = 0; j < count; j++) {
                    scores[j] = IndexerKernels.dot(query.indexQuery(), indexKeys, j * dims.index(), dims.index());
                }
                int[] selected = IndexerKernels.topK(scores, count, dims.topk());
                float[] chosen = new float[selected.length * width];
                for (int i = 0; i < selected.length; i++) {
                    System.arraycopy(keys, selected[i] * width, chosen, i * width, width);
                }
                float[] out = new float[dims.latent()];
                AttentionKernels.attend(query.q(), chosen, selected.length, dims.latent(), out);
                state.putAttention(l, t, out);
            }
        }
    }
}
