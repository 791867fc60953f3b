package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

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
}
