package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

class IndexerAndAttentionTest {
    @Test
    void topKOrdersByScoreThenSmallerPositionAndReturnsAscendingPositions() {
        float[] scores = {1f, 5f, 5f, -2f, 7f, 5f};
        assertThat(IndexerKernels.topK(scores, 6, 3)).containsExactly(1, 2, 4);
        assertThat(IndexerKernels.topK(scores, 6, 4)).containsExactly(1, 2, 4, 5);
        assertThat(IndexerKernels.topK(scores, 3, 8)).containsExactly(0, 1, 2);
        assertThat(IndexerKernels.topK(new float[] {-1f, -3f, -0.5f}, 3, 1)).containsExactly(2);
        assertThat(IndexerKernels.topK(new float[] {-0.0f, 0.0f}, 2, 1)).containsExactly(0);
    }

    @Test
    void attentionOverOneKeyReturnsItsLatent() {
        float[] out = new float[2];
        AttentionKernels.attend(new float[] {1, 1, 1}, new float[] {3, 4, 9}, 1, 2, out);
        assertThat(out).containsExactly(3f, 4f);
    }

    @Test
    void attentionIsStableForHugeLogitsAndWeighsByScore() {
        float[] q = {1000f, 0f};
        float[] keys = {1000f, 0f, /* second */ -1000f, 1f};
        float[] out = new float[1];
        AttentionKernels.attend(q, keys, 2, 1, out);
        assertThat(out[0]).isEqualTo(1000f);
        float[] even = new float[1];
        AttentionKernels.attend(new float[] {0f, 0f}, new float[] {2f, 0f, 4f, 0f}, 2, 1, even);
        assertThat(even[0]).isCloseTo(3f, within(1e-6f));
    }

    @Test
    void attentionOverSelectedRowsEqualsAttentionOverTheRowsGatheredFirst() {
        int width = 3;
        float[] rows = {1, 0, 2, /* 1 */ 0, 1, 5, /* 2 */ 2, 2, -1, /* 3 */ -1, 3, 0};
        float[] queries = {1, 2, 0, /* query 1 */ 0, -1, 1};
        int[] selected = {3, 0, /* query 1 */ 2, 2};
        float[] gathered = new float[selected.length * width];
        for (int r = 0; r < selected.length; r++) {
            System.arraycopy(rows, selected[r] * width, gathered, r * width, width);
        }
        IntArray shape = IntArray.fromArray(new int[] {width, 2, 2, 2});
        FloatArray batch = new FloatArray(4);
        AttentionKernels.attendBatch(FloatArray.fromArray(queries), FloatArray.fromArray(gathered), shape, new FloatArray(4), batch);
        FloatArray fused = new FloatArray(4);
        AttentionKernels.attendSelected(FloatArray.fromArray(queries), FloatArray.fromArray(rows), IntArray.fromArray(selected), shape,
                new FloatArray(4), fused);
        assertThat(fused.toHeapArray()).containsExactly(batch.toHeapArray());
        assertThat(fused.toHeapArray()[2]).as("query 1 picked row 2 twice: its own latent").isEqualTo(2f);
    }
}
