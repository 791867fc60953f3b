package org.kvflow.model.synthetic;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.nsa.IndexScorer;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SparseAttention;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.model.KvConsumer;
import org.kvflow.model.LayerView;

/**
 * The synthetic layer's attention step (contract §3.8 steps 6–7) on a kernel device: the indexer
 * scores every query against every key of the view and keeps its top-k among the keys
 * {@code j ≤ t} ({@link IndexScorer}), and one-head sparse attention runs over those rows
 * ({@link SparseAttention}), queries with the same number of selected keys together. In place
 * where the view reaches the device; from the heap elsewhere. The kernels keep their device
 * buffers from request to request until {@link #close()}. On the {@code java} device this is bit
 * for bit the single-query reference; other devices differ by the bounds their kernels state.
 * Thread-safe: cancellation may close it from another thread.
 */
final class SyntheticConsumer implements KvConsumer {
    private final SyntheticModel model;
    private final Device device;
    private @Nullable IndexScorer scorer;
    private @Nullable SparseAttention attention;

    SyntheticConsumer(SyntheticModel model, Device device) {
        this.model = model;
        this.device = device;
    }

    @Override
    public synchronized float[][] attend(int layer, LayerView view, int[] tokenIds, long[] positions) {
        int nq = positions.length;
        float[][] outputs = new float[nq][];
        if (nq == 0) {
            return outputs;
        }
        NsaDims dims = model.dims();
        int width = dims.latent() + dims.rope();
        int dimI = dims.index();
        if (scorer == null) {
            scorer = new IndexScorer(dimI, device);
            attention = new SparseAttention(width, dims.latent(), device);
        }
        SyntheticNsaLayer weights = model.layer(layer);
        float[] indexQueries = new float[nq * dimI];
        float[] queries = new float[nq * width];
        int[] counts = new int[nq];
        for (int i = 0; i < nq; i++) {
            SyntheticNsaLayer.TokenQuery query = weights.query(tokenIds[(int) positions[i]], positions[i]);
            System.arraycopy(query.q(), 0, queries, i * width, width);
            System.arraycopy(query.indexQuery(), 0, indexQueries, i * dimI, dimI);
            counts[i] = (int) positions[i] + 1; // causal: query t sees keys 0..t
        }
        boolean inPlace = view.inPlace();
        int[][] selected = inPlace
                ? scorer.topK(indexQueries, view.keyCount(), view::readIndexKeys, counts, dims.topk())
                : scorer.topK(indexQueries, view.indexCodes(), view.indexScales(), counts, dims.topk());
        float[] keys = inPlace ? new float[0] : view.keyRows();
        Map<Integer, List<Integer>> bySize = new LinkedHashMap<>();
        for (int i = 0; i < nq; i++) {
            bySize.computeIfAbsent(selected[i].length, n -> new ArrayList<>()).add(i);
        }
        for (Map.Entry<Integer, List<Integer>> group : bySize.entrySet()) {
            attendGroup(group.getKey(), group.getValue(), width, dims.latent(), queries, selected, view, keys, outputs);
        }
        return outputs;
    }

    /** Sparse attention for the queries {@code members} that each select {@code count} keys. */
    private void attendGroup(int count, List<Integer> members, int width, int latent, float[] queries, int[][] selected, LayerView view,
                             float[] keys, float[][] outputs) {
        int n = members.size();
        float[] q = new float[n * width];
        long[] chosen = new long[n * count];
        for (int r = 0; r < n; r++) {
            int query = members.get(r);
            System.arraycopy(queries, query * width, q, r * width, width);
            for (int s = 0; s < count; s++) {
                chosen[r * count + s] = selected[query][s];
            }
        }
        SparseAttention sparse = Objects.requireNonNull(attention);
        float[] out;
        if (view.inPlace()) {
            out = sparse.attend(q, count, region -> view.readKeyRows(chosen, region));
        } else {
            float[] picked = new float[n * count * width];
            for (int k = 0; k < chosen.length; k++) {
                System.arraycopy(keys, (int) chosen[k] * width, picked, k * width, width);
            }
            out = sparse.attend(q, picked, count);
        }
        for (int r = 0; r < n; r++) {
            outputs[members.get(r)] = Arrays.copyOfRange(out, r * latent, (r + 1) * latent);
        }
    }

    @Override
    public synchronized void close() {
        if (scorer != null) {
            scorer.close();
            Objects.requireNonNull(attention).close();
            scorer = null;
            attention = null;
        }
    }
}
