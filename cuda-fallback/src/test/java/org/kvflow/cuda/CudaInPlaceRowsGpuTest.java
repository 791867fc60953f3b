package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.IndexScorer;
import org.kvflow.kernels.nsa.MlaRows;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SparseAttention;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.kernels.nsa.HostRows;
import org.kvflow.kernels.nsa.KeyFloats;
import org.kvflow.kernels.nsa.RowEncoder;
import org.kvflow.kernels.nsa.SyntheticKeys;
import org.kvflow.pages.HeapPageMemory;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.kernels.rows.RowWrites;
import org.kvflow.kernels.rows.StoreRows;

/**
 * On the GPU machine: rows computed by the cuda task-graph device and stored in place into device
 * stores hold the bytes the host path writes into heap stores; index keys and key rows read in
 * place out of a device view give the indexer and sparse attention the same inputs, so the same
 * selections and outputs, as keys decoded on the host. No page byte crosses the host.
 */
@Tag("cuda")
class CudaInPlaceRowsGpuTest {
    private static final int STORES = 3;
    private static CudaPageMemory cuda;
    private static Device kernels;

    @BeforeAll
    static void open() {
        cuda = new CudaPageMemory(0);
        kernels = Devices.select("cuda");
    }

    @AfterAll
    static void close() {
        cuda.close();
    }

    @ParameterizedTest
    @CsvSource({"REAL, FP8_E4M3, 64, 300", "TOY, BF16, 4, 37", "TOY, FP8_E4M3, 4, 129"})
    void rowsStoredAndKeysReadInPlaceEqualTheHostPath(String dimsName, KvDtype dtype, int ps, int n) {
        NsaDims dims = dimsName.equals("REAL") ? NsaDims.REAL : new NsaDims(16, 200, 8, 136, 8);
        KvLayout layout = dims.layout(dtype, 1);
        SyntheticNsaLayer layer = SyntheticNsaLayer.ofModel(9, dims, 1);
        SplittableRandom rnd = new SplittableRandom(n);
        int[] tokens = new int[n];
        long[] positions = new long[n];
        for (int t = 0; t < n; t++) {
            tokens[t] = rnd.nextInt(129_280);
            positions[t] = t;
        }
        int pages = (n + ps - 1) / ps + 2;
        List<PageStore> device = new ArrayList<>();
        List<PageStore> heap = new ArrayList<>();
        HeapPageMemory memory = new HeapPageMemory();
        for (int s = 0; s < STORES; s++) {
            device.add(PageStore.allocate(cuda, "device store " + s, layout, ps, pages));
            heap.add(PageStore.allocate(memory, "heap store " + s, layout, ps, pages));
        }
        RowWrites writes = new RowWrites();
        long[] rowOf = new long[n];
        for (int t = 0; t < n; t++) {
            rowOf[t] = (long) (pages - 1 - t / ps) * ps + t % ps; // pages in reverse order, slots kept
            writes.add(t, t % STORES, rowOf[t]);
            if (t % 5 == 0) {
                writes.add(t, (t + 1) % STORES, rowOf[t]); // a replicated row: two copies
            }
        }
        try (SyntheticKeys keys = new SyntheticKeys(layer, kernels); RowEncoder rows = new RowEncoder(layout, kernels)) {
            KeyFloats floats = keys.keys(tokens, positions);
            long before = cuda.hostTraffic().total();
            StoreRows.store(device, 0, rows.onDevice(floats), writes);
            assertThat(cuda.hostTraffic().total()).as("page bytes the in-place store moved across the host").isEqualTo(before);
            HostRows host = rows.rows(floats);
            for (int t = 0; t < n; t++) {
                put(heap.get(t % STORES), rowOf[t], host, t, layout);
                if (t % 5 == 0) {
                    put(heap.get((t + 1) % STORES), rowOf[t], host, t, layout);
                }
            }
            for (int s = 0; s < STORES; s++) {
                for (KvComponent c : KvComponent.values()) {
                    assertThat(device.get(s).readLayer(0, c)).as("store %d %s", s, c).isEqualTo(heap.get(s).readLayer(0, c));
                }
            }
            long checked = cuda.hostTraffic().total();
            assertKeysReadInPlace(dims, layout, ps, n, device.get(0), heap.get(0), pages);
            assertThat(cuda.hostTraffic().total()).as("page bytes the in-place key reads moved across the host").isEqualTo(checked);
        } finally {
            device.forEach(PageStore::close);
        }
    }

    private static void put(PageStore store, long row, HostRows rows, int t, KvLayout layout) {
        int dimI = layout.shape().indexDim();
        store.writeMlaRows(0, row, rows.mla(), t * layout.mlaRowBytes(), 1);
        store.writeIndexRows(0, row, rows.indexCodes(), t * dimI, rows.indexScales(), t * KvLayout.tiles(dimI), 1);
    }

    /** Store 0 as a view: the indexer and attention over its keys, read in place or decoded on the host, agree exactly. */
    private static void assertKeysReadInPlace(NsaDims dims, KvLayout layout, int ps, int n, PageStore view, PageStore heapView, int pages) {
        long[] viewPages = new long[pages];
        for (int p = 0; p < pages; p++) {
            viewPages[p] = pages - 1 - p;
        }
        int keys = pages * ps;
        int dimI = dims.index();
        int blocks = KvLayout.tiles(dimI);
        int width = dims.latent() + dims.rope();
        byte[] index = heapView.readPages(0, KvComponent.INDEX, viewPages);
        byte[] mla = heapView.readPages(0, KvComponent.MLA, viewPages);
        byte[] codes = new byte[keys * dimI];
        float[] scales = new float[keys * blocks];
        float[] keyRows = new float[keys * width];
        float[] row = new float[width];
        for (int j = 0; j < keys; j++) {
            IndexRows.rawRow(index, j / ps * heapView.indexPageBytes(), ps, dimI, j % ps, codes, j * dimI, scales, j * blocks);
            MlaRows.decodeKey(mla, j * layout.mlaRowBytes(), layout, row);
            System.arraycopy(row, 0, keyRows, j * width, width);
        }
        SplittableRandom rnd = new SplittableRandom(4);
        int nq = 5;
        float[] queries = new float[nq * dimI];
        for (int i = 0; i < queries.length; i++) {
            queries[i] = (float) rnd.nextGaussian();
        }
        int[] counts = {1, keys / 3, keys / 2, keys - 1, keys};
        int topK = Math.min(dims.topk(), keys / 2);
        try (IndexScorer scorer = new IndexScorer(dimI, kernels); SparseAttention attention = new SparseAttention(width, dims.latent(), kernels)) {
            int[][] onHost = scorer.topK(queries, codes, scales, counts, topK);
            int[][] inPlace = scorer.topK(queries, keys, (c, s) -> StoreRows.readIndexKeys(view, 0, viewPages, keys, c, s), counts, topK);
            assertThat(inPlace).isDeepEqualTo(onHost);
            int selected = onHost[3].length;
            float[] q = new float[2 * width];
            for (int i = 0; i < q.length; i++) {
                q[i] = (float) rnd.nextGaussian();
            }
            long[] chosen = new long[2 * selected];
            float[] picked = new float[2 * selected * width];
            for (int k = 0; k < 2 * selected; k++) {
                chosen[k] = onHost[3 + k / selected][k % selected];
                System.arraycopy(keyRows, (int) chosen[k] * width, picked, k * width, width);
            }
            float[] expected = attention.attend(q, picked, selected);
            assertThat(attention.attend(q, selected, out -> StoreRows.readKeyRows(view, 0, viewPages, chosen, out))).isEqualTo(expected);
        }
    }
}
