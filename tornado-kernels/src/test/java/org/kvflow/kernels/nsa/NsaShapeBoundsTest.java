package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;

/**
 * The NSA shapes' checks at their edges: each size at its least is taken, one below is refused
 * naming every size, and only the real widths together make an nsa-mla layout.
 */
class NsaShapeBoundsTest {
    private static final String CHAIN_RULE = ": sizes must be positive, latent ≤ width and topK ≤ keys";

    @Test
    void aChainShapeTakesEachSizeAtOneAndLatentAndTopKAtTheirCeilings() {
        assertThatCode(() -> new AttentionChain.Shape(1, 1, 1, 1, 1, 1)).doesNotThrowAnyException();
        assertThatCode(() -> new AttentionChain.Shape(8, 40, 40, 2, 300, 300)).as("latent = width, topK = keys").doesNotThrowAnyException();
        int[] base = {8, 40, 32, 2, 300, 17};
        String[] names = {"indexDim", "width", "latent", "queries", "keys", "topK"};
        for (int i = 0; i < base.length; i++) {
            int[] sizes = base.clone();
            sizes[i] = 0;
            assertThatThrownBy(() -> chain(sizes)).as(names[i] + " = 0").isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("attention chain " + described(names, sizes) + CHAIN_RULE);
        }
        assertThatThrownBy(() -> new AttentionChain.Shape(8, 40, 32, 2, 300, 301)).as("topK past the keys")
                .hasMessage("attention chain indexDim=8 width=40 latent=32 queries=2 keys=300 topK=301" + CHAIN_RULE);
    }

    @Test
    void nsaDimsTakeEachWidthAtItsLeastAndRefuseOneBelow() {
        assertThatCode(() -> new NsaDims(1, 1, 0, 1, 1)).as("no rope is a rope of 0").doesNotThrowAnyException();
        assertThatThrownBy(() -> new NsaDims(0, 1, 0, 1, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hidden, latent, index and topk must be >= 1: 0, 1, 1, 1");
        assertThatThrownBy(() -> new NsaDims(1, 0, 0, 1, 1)).hasMessage("hidden, latent, index and topk must be >= 1: 1, 0, 1, 1");
        assertThatThrownBy(() -> new NsaDims(1, 1, 0, 1, 0)).hasMessage("hidden, latent, index and topk must be >= 1: 1, 1, 1, 0");
        assertThatThrownBy(() -> new NsaDims(1, 1, -2, 1, 1)).hasMessage("rope must be even and >= 0, was -2");
        assertThatThrownBy(() -> new NsaDims(1, 1, 3, 1, 1)).hasMessage("rope must be even and >= 0, was 3");
    }

    @Test
    void onlyTheRealWidthsTogetherMakeAnNsaMlaLayout() {
        KvLayout real = NsaDims.REAL.layout(KvDtype.FP8_E4M3, 3);
        assertThat(real.shape().kind()).isEqualTo(ModelKind.NSA_MLA);
        assertThat(real.shape().name()).isEqualTo("synthetic-nsa");
        assertThat(real.shape().layers()).isEqualTo(3);
        for (NsaDims oneOff : new NsaDims[] {new NsaDims(64, 256, 64, 128, 2048), new NsaDims(64, 512, 32, 128, 2048),
                new NsaDims(64, 512, 64, 64, 2048)}) {
            KvLayout toy = oneOff.layout(KvDtype.BF16, 1);
            assertThat(toy.shape().kind()).as(oneOff.toString()).isEqualTo(ModelKind.TOY_MLA);
            assertThat(toy.shape().name()).isEqualTo("synthetic-toy");
            assertThat(toy.dtype()).isEqualTo(KvDtype.BF16);
        }
        assertThat(new NsaDims(16, 512, 64, 128, 8).layout(KvDtype.FP8_E4M3, 1).shape().kind())
                .as("hidden width and top-k do not decide the kind").isEqualTo(ModelKind.NSA_MLA);
    }

    private static AttentionChain.Shape chain(int[] s) {
        return new AttentionChain.Shape(s[0], s[1], s[2], s[3], s[4], s[5]);
    }

    private static String described(String[] names, int[] sizes) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < names.length; i++) {
            b.append(i == 0 ? "" : " ").append(names[i]).append('=').append(sizes[i]);
        }
        return b.toString();
    }
}
