package org.kvflow.deepseek;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The layer's widths at their edges, each refusal by its message, and the softmax scale with and without YaRN's extension. */
class V32ConfigTest {
    /** TINY with widths {@code w} (hidden, qLora, kvLora, heads, nope, v, indexHeads, topk), rope and indexDim given. */
    private static V32Config tiny(int[] w, int rope, int indexDim) {
        return new V32Config(w[0], w[1], w[2], rope, w[3], w[4], w[5], w[6], indexDim, w[7], 10000, 40, 4096, 163840, 32, 1, 1);
    }

    @Test
    void everyWidthMayBeOneAndNoneZero() {
        int[] ones = {1, 1, 1, 1, 1, 1, 1, 1};
        assertThat(tiny(ones, 2, 2).qkHead()).as("nope 1 + rope 2").isEqualTo(3);
        List<String> names = List.of("hidden", "qLora", "kvLora", "heads", "nope", "v", "indexHeads", "topk");
        for (int i = 0; i < names.size(); i++) {
            int[] w = ones.clone();
            w[i] = 0;
            assertThatThrownBy(() -> tiny(w, 16, 32)).isInstanceOf(IllegalArgumentException.class).hasMessage(names.get(i) + " must be >= 1, was 0");
        }
    }

    @Test
    void ropeIsEvenAndTheIndexDimAPowerOfTwoFromRopeTo128() {
        int[] w = {64, 48, 32, 4, 16, 16, 4, 8};
        assertThat(tiny(w, 32, 32).indexDim()).as("indexDim equal to rope").isEqualTo(32);
        assertThat(tiny(w, 16, 128).indexDim()).as("the largest indexDim").isEqualTo(128);
        assertThatThrownBy(() -> tiny(w, 0, 32)).isInstanceOf(IllegalArgumentException.class).hasMessage("rope must be even and >= 2, was 0");
        assertThatThrownBy(() -> tiny(w, 16, 256)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("indexDim must be a power of two from rope (16) to 128 (one fp8 scale per index key), was 256");
        assertThatThrownBy(() -> tiny(w, 64, 32)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("indexDim must be a power of two from rope (64) to 128 (one fp8 scale per index key), was 32");
    }

    @Test
    void theSoftmaxScaleTakesYarnsFactorOnlyWhenTheContextIsExtended() {
        // DeepSeek V3.2: (128 + 64)^-0.5 = 0.0721688, times (0.1 ln 40 + 1)^2 = 1.8738542
        assertThat(V32Config.REAL.softmaxScale()).isCloseTo(0.1352338f, within(1e-6f));
        V32Config unextended = new V32Config(7168, 1536, 512, 64, 128, 128, 128, 64, 128, 2048, 10000, 40, 4096, 4096, 32, 1, 1);
        assertThat(unextended.softmaxScale()).as("max_seq_len equal to original_seq_len: no YaRN").isCloseTo(0.0721688f, within(1e-6f));
        V32Config mscale2 = new V32Config(7168, 1536, 512, 64, 128, 128, 128, 64, 128, 2048, 10000, 40, 4096, 163840, 32, 1, 2);
        assertThat(mscale2.softmaxScale()).as("mscale 2: 0.0721688 (0.2 ln 40 + 1)^2").isCloseTo(0.2179400f, within(1e-6f));
    }
}
