package org.kvflow.core.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class KvLayoutTest {
    @Test
    void mlaRowBytesMatchSpecTable() {
        assertThat(new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.BF16).mlaRowBytes()).isEqualTo(1152);
        assertThat(new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3).mlaRowBytes()).isEqualTo(656);
        ModelShape plainMla = new ModelShape("mla", ModelKind.MLA, 61, 512, 64, 0);
        assertThat(new KvLayout(plainMla, KvDtype.FP8_E4M3).mlaRowBytes()).isEqualTo(576);
        assertThat(new KvLayout(plainMla, KvDtype.FP8_E4M3).indexRowBytes()).isZero();
    }

    @Test
    void mlaPagePerLayerAtPageSize64() {
        assertThat(new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.BF16).mlaPageBytes(64)).isEqualTo(73_728);
        assertThat(new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3).mlaPageBytes(64)).isEqualTo(41_984);
    }

    @Test
    void fp8RowOffsetsPlaceScalesThenRope() {
        KvLayout fp8 = new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3);
        assertThat(fp8.mlaScaleOffset()).isEqualTo(512);
        assertThat(fp8.mlaRopeOffset()).isEqualTo(528);
        assertThat(new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.BF16).mlaRopeOffset()).isEqualTo(1024);
    }

    @Test
    void indexerPageHasDataThenScaleRegion() {
        KvLayout layout = new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3);
        assertThat(layout.indexRowBytes()).isEqualTo(132);
        assertThat(layout.indexPageBytes(64)).isEqualTo(8_448);
        assertThat(layout.indexScaleRegionOffset(64)).isEqualTo(8_192);
    }

    @Test
    void perTokenTotalsMatchSpecTable() {
        assertThat(new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.FP8_E4M3).bytesPerTokenAllLayers()).isEqualTo(48_068);
        assertThat(new KvLayout(ModelShape.DEEPSEEK_V32, KvDtype.BF16).bytesPerTokenAllLayers()).isEqualTo(78_324);
        assertThat(new KvLayout(ModelShape.GLM5, KvDtype.FP8_E4M3).bytesPerTokenAllLayers()).isEqualTo(61_464);
    }

    @Test
    void toyWidthsUseAShorterLastTile() {
        ModelShape toy = new ModelShape("toy", ModelKind.TOY_MLA, 2, 200, 8, 40);
        KvLayout layout = new KvLayout(toy, KvDtype.FP8_E4M3);
        assertThat(layout.mlaRowBytes()).isEqualTo(200 + 2 * 4 + 8 * 2);
        assertThat(layout.indexRowBytes()).isEqualTo(40 + 4);
    }

    @Test
    void presetsAreFoundByName() {
        assertThat(ModelShape.preset("glm-5")).contains(ModelShape.GLM5);
        assertThat(ModelShape.preset("llama")).isEmpty();
    }

    @Test
    void aShapeKvflowCannotHoldIsRefusedNamingTheField() {
        assertThatThrownBy(() -> new ModelShape("llama", ModelKind.MHA, 32, 128, 0, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kvflow models MLA KV caches only, not mha");
        assertThatThrownBy(() -> new ModelShape("odd", ModelKind.MLA, 2, 512, 63, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("ropeDim must be even and >= 0, was 63");
        assertThatThrownBy(() -> new ModelShape("none", ModelKind.MLA, 0, 512, 64, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("layers must be >= 1, was 0");
    }
}
