package org.kvflow.kernels.rows;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.nsa.IndexRows;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.RowOutOfRangeException;

/** A page store's row writes from the heap put bytes where the kernels' row codecs read them. */
class HeapRowWritesTest {
    private static final NsaDims TOY = new NsaDims(8, 16, 4, 8, 4);
    private static final KvLayout LAYOUT = TOY.layout(KvDtype.FP8_E4M3, 2);
    private static final int PS = 2;

    private static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        new java.util.SplittableRandom(seed).nextBytes(b);
        return b;
    }

    @Test
    void rowWritesLandWhereTheRowCodecsReadThem() {
        PageStore store = PageStore.onHeap("rank 0", LAYOUT, PS, 2);
        int rowBytes = LAYOUT.mlaRowBytes();
        byte[] rows = pattern(2 * rowBytes, 4);
        store.writeMlaRows(1, 2, rows, 0, 2);
        byte[] layer = store.readLayer(1, KvComponent.MLA);
        assertThat(java.util.Arrays.copyOfRange(layer, 2 * rowBytes, 4 * rowBytes)).isEqualTo(rows);
        int dim = TOY.index();
        byte[] codes = pattern(2 * dim, 5);
        float[] scales = {0.5f, 0.25f};
        store.writeIndexRows(0, 2, codes, 0, scales, 0, 2);
        byte[] expected = new byte[store.indexPageBytes()];
        IndexRows.put(codes, 0, scales, 0, dim, PS, 0, expected, 0);
        IndexRows.put(codes, dim, scales, 1, dim, PS, 1, expected, 0);
        assertThat(store.readPage(0, KvComponent.INDEX, 1)).isEqualTo(expected);
        assertThatThrownBy(() -> store.writeMlaRows(0, 3, rows, 0, 2)).isInstanceOf(RowOutOfRangeException.class)
                .hasMessage("rank 0: row 4 lies outside [0, 4)");
        assertThatThrownBy(() -> store.writeIndexRows(0, 1, codes, 0, scales, 0, 2)).as("index rows of one call share a page")
                .isInstanceOf(RowOutOfRangeException.class).hasMessage("rank 0: row 2 lies outside [0, 2)");
        assertThat(store.readPage(0, KvComponent.INDEX, 0)).as("a refused write moves nothing").containsOnly(0);
    }
}
