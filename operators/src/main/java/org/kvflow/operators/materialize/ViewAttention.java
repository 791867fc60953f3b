package org.kvflow.operators.materialize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.IndexScorer;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SparseAttention;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.RequestState;
import org.kvflow.kernels.rows.StoreRows;

/**
 * The attention step on a full view (contract §3.8 steps 6–7), run on a kernel device: for each
 * layer, the indexer scores every sampled query of a request against every key read from the
 * view and keeps its top-k among the keys {@code j ≤ t}, both on the device ({@link IndexScorer}),
 * and sparse attention runs over those rows ({@link SparseAttention}), queries with the same
 * number of selected keys together. Where the view's memory reaches the kernel device (a cuda view
 * with the cuda device), the page memory reads the index keys and the selected key rows out of
 * the view's pages straight into the kernels' device arrays, so no page byte crosses the host;
 * elsewhere the request's view pages are read to the heap and decoded there. The kernels keep their device buffers from request to request (one
 * kernel build per growth, not per shape) until {@link #close()}. On the {@code java} device this is bit-for-bit the single-query
 * reference; other devices differ by the bounds their kernels state.
 */
final class ViewAttention implements AutoCloseable {
    private final Device device;
    private @Nullable IndexScorer scorer;
    private @Nullable SparseAttention attention;

    ViewAttention(Device device) {
        this.device = device;
    }

    /** The attention outputs of the request's sampled {@code positions}, keyed {@code layer · seqLen + position}. */
    synchronized Map<Long, float[]> run(KvModel model, FullView view, long[] pageTable, RequestState state, long[] positions) {
        Map<Long, float[]> outputs = new HashMap<>();
        if (positions.length == 0) {
            return outputs;
        }
        NsaDims dims = model.dims();
        KvLayout layout = model.layout();
        int ps = view.store().pageSize();
        int width = dims.latent() + dims.rope();
        int dimI = dims.index();
        int blocks = KvLayout.tiles(dimI);
        int nq = positions.length;
        int keyCount = (int) positions[nq - 1] + 1;
        PageStore store = view.store();
        boolean inPlace = StoreRows.reaches(store, device); // else the keys are read to the heap and decoded there
        byte[] codesBuffer = inPlace ? new byte[0] : new byte[keyCount * dimI];
        float[] scalesBuffer = inPlace ? new float[0] : new float[keyCount * blocks];
        float[] keys = inPlace ? new float[0] : new float[keyCount * width];
        float[] keyRow = new float[width];
        float[] indexQueries = new float[nq * dimI];
        float[][] queries = new float[nq][];
        int[] counts = new int[nq];
        for (int i = 0; i < nq; i++) {
            counts[i] = (int) positions[i] + 1; // causal: query t sees keys 0..t
        }
        if (scorer == null) {
            scorer = new IndexScorer(dimI, device);
            attention = new SparseAttention(width, dims.latent(), device);
        }
        // only this request's pages of the view, in position order: key j lies in page j / ps of what is read
        long[] viewPages = new long[(keyCount + ps - 1) / ps];
        for (int p = 0; p < viewPages.length; p++) {
            viewPages[p] = view.viewPage(pageTable[p]);
        }
        for (int l = 0; l < model.layerCount(); l++) {
            int layerIndex = l;
            SyntheticNsaLayer layer = model.layer(l);
            for (int i = 0; i < nq; i++) {
                SyntheticNsaLayer.TokenQuery query = layer.query(state.request().tokenId((int) positions[i]), positions[i]);
                queries[i] = query.q();
                System.arraycopy(query.indexQuery(), 0, indexQueries, i * dimI, dimI);
            }
            int[][] selected;
            if (inPlace) {
                selected = scorer.topK(indexQueries, keyCount, (codes, scales) -> StoreRows.readIndexKeys(store, layerIndex, viewPages, keyCount, codes, scales),
                        counts, dims.topk());
            } else {
                byte[] mla = store.readPages(l, KvComponent.MLA, viewPages);
                byte[] index = store.readPages(l, KvComponent.INDEX, viewPages);
                for (int j = 0; j < keyCount; j++) {
                    IndexRows.rawRow(index, j / ps * store.indexPageBytes(), ps, dimI, j % ps, codesBuffer, j * dimI, scalesBuffer, j * blocks);
                    MlaRows.decodeKey(mla, j * layout.mlaRowBytes(), layout, keyRow);
                    System.arraycopy(keyRow, 0, keys, j * width, width);
                }
                selected = scorer.topK(indexQueries, codesBuffer, scalesBuffer, counts, dims.topk());
            }
            Map<Integer, List<int[]>> bySize = new LinkedHashMap<>();
            for (int i = 0; i < nq; i++) {
                bySize.computeIfAbsent(selected[i].length, n -> new ArrayList<>()).add(prepend(i, selected[i]));
            }
            for (Map.Entry<Integer, List<int[]>> group : bySize.entrySet()) {
                KeyRows rows = inPlace ? (chosen, out) -> StoreRows.readKeyRows(store, layerIndex, viewPages, chosen, out) : null;
                attend(group.getKey(), group.getValue(), l, width, dims.latent(), queries, keys, rows, positions, state, outputs);
            }
        }
        return outputs;
    }

    /** Reads the keys at positions {@code chosen} of the request out of the view's pages into a device array, in place. */
    private interface KeyRows {
        void read(long[] chosen, DeviceRegion out);
    }

    /** Sparse attention for the queries (entry 0 of each row: the query; the rest: its selected keys) that select {@code selected} keys. */
    private void attend(int selected, List<int[]> rows, int layer, int width, int latent, float[][] queries, float[] keys,
                        @Nullable KeyRows inPlace, long[] positions, RequestState state, Map<Long, float[]> outputs) {
        int n = rows.size();
        float[] q = new float[n * width];
        for (int r = 0; r < n; r++) {
            System.arraycopy(queries[rows.get(r)[0]], 0, q, r * width, width);
        }
        SparseAttention sparse = Objects.requireNonNull(attention);
        float[] out;
        if (inPlace != null) {
            long[] chosen = new long[n * selected];
            for (int r = 0; r < n; r++) {
                for (int s = 0; s < selected; s++) {
                    chosen[r * selected + s] = rows.get(r)[1 + s];
                }
            }
            out = sparse.attend(q, selected, region -> inPlace.read(chosen, region));
        } else {
            float[] picked = new float[n * selected * width];
            for (int r = 0; r < n; r++) {
                for (int s = 0; s < selected; s++) {
                    System.arraycopy(keys, rows.get(r)[1 + s] * width, picked, (r * selected + s) * width, width);
                }
            }
            out = sparse.attend(q, picked, selected);
        }
        for (int r = 0; r < n; r++) {
            outputs.put(layer * (long) state.request().seqLen() + positions[rows.get(r)[0]], Arrays.copyOfRange(out, r * latent, (r + 1) * latent));
        }
    }

    private static int[] prepend(int first, int[] rest) {
        int[] row = new int[rest.length + 1];
        row[0] = first;
        System.arraycopy(rest, 0, row, 1, rest.length);
        return row;
    }

    /** Frees the device buffers of the kernels (waits for a run in progress: cancellation may come from another thread). */
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
