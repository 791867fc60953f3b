package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;

class SyntheticNsaLayerTest {
    private static final NsaDims TOY = new NsaDims(16, 40, 8, 24, 8);

    @Test
    void sameSeedSameFloatsAndLayersDiffer() {
        SyntheticNsaLayer a = SyntheticNsaLayer.ofModel(42, TOY, 1);
        SyntheticNsaLayer b = new SyntheticNsaLayer(43, TOY);
        assertThat(a.key(7, 100).latent()).containsExactly(b.key(7, 100).latent());
        assertThat(a.query(7, 100).q()).containsExactly(b.query(7, 100).q());
        assertThat(SyntheticNsaLayer.ofModel(42, TOY, 0).key(7, 100).latent()).isNotEqualTo(a.key(7, 100).latent());
    }

    @Test
    void keyDependsOnTokenAndPosition() {
        SyntheticNsaLayer layer = new SyntheticNsaLayer(1, TOY);
        assertThat(layer.key(5, 3).latent()).isNotEqualTo(layer.key(5, 4).latent());
        assertThat(layer.key(5, 3).latent()).isNotEqualTo(layer.key(6, 3).latent());
    }

    @Test
    void inputFollowsTheSpecFormula() {
        SyntheticNsaLayer layer = new SyntheticNsaLayer(9, TOY);
        long m = 9L ^ (3 * 0x9E3779B97F4A7C15L) ^ (11 * 0xC2B2AE3D27D4EB4FL);
        float first = (float) (2.0 * new java.util.SplittableRandom(m).nextDouble() - 1.0);
        assertThat(layer.input(3, 11)[0]).isEqualTo(first);
    }

    @Test
    void mlaRowsRoundTripWithinTheQuantisationError() {
        NsaDims real = NsaDims.REAL;
        SyntheticNsaLayer layer = new SyntheticNsaLayer(5, real);
        SyntheticNsaLayer.TokenKv kv = layer.key(123, 4567);
        for (KvDtype dtype : KvDtype.values()) {
            KvLayout layout = real.layout(dtype, 1);
            byte[] row = new byte[layout.mlaRowBytes()];
            MlaRows.encode(kv.latent(), kv.rope(), layout, row, 0);
            float[] key = new float[real.latent() + real.rope()];
            MlaRows.decodeKey(row, 0, layout, key);
            float amax = 0;
            for (float v : kv.latent()) {
                amax = Math.max(amax, Math.abs(v));
            }
            for (int i = 0; i < real.latent(); i++) {
                float tolerance = dtype == KvDtype.BF16 ? Math.abs(kv.latent()[i]) / 128 + 1e-30f : amax / 448f * 16;
                assertThat(key[i]).isCloseTo(kv.latent()[i], within(tolerance));
            }
            for (int r = 0; r < real.rope(); r++) {
                assertThat(key[real.latent() + r]).isCloseTo(kv.rope()[r], within(Math.abs(kv.rope()[r]) / 128 + 1e-30f));
            }
        }
    }

    @Test
    void fp8MlaRowPlacesScalesAfterTheLatent() {
        KvLayout layout = NsaDims.REAL.layout(KvDtype.FP8_E4M3, 1);
        float[] latent = new float[512];
        latent[130] = 4.48f; // tile 1's largest magnitude
        byte[] row = new byte[656];
        MlaRows.encode(latent, new float[64], layout, row, 0);
        assertThat(row[130]).isEqualTo((byte) 0x7E);
        assertThat(Bytes.getFloat(row, 512 + 4)).isEqualTo(4.48f / 448f);
        assertThat(Bytes.getFloat(row, 512)).isEqualTo(1.0f);
    }

    @Test
    void indexPageKeepsDataAndScalesApart() {
        int ps = 4;
        float[] k = new float[128];
        k[0] = -8f;
        byte[] page = new byte[ps * 132];
        IndexRows.encode(k, ps, 2, page, 0);
        assertThat(page[2 * 128]).isEqualTo((byte) 0xFE);
        assertThat(Bytes.getFloat(page, ps * 128 + 4 * 2)).isEqualTo(8f / 448f);
        float[] back = new float[128];
        IndexRows.decode(page, 0, ps, 2, back);
        assertThat(back[0]).isEqualTo(-8f);
    }

    @Test
    void widthsNoLayerHasAreRefused() {
        assertThatThrownBy(() -> new NsaDims(64, 512, 64, 0, 2048)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("hidden, latent, index and topk must be >= 1: 64, 512, 0, 2048");
        assertThatThrownBy(() -> new NsaDims(64, 512, 7, 128, 2048)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("rope must be even and >= 0, was 7");
    }
}
