package org.kvflow.kernels.quant;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TileQuantTest {
    @Test
    void scaleMapsTheLargestMagnitudeTo448() {
        float[] x = {0.5f, -2.0f, 1.0f};
        float scale = TileQuant.scale(x, 0, 3);
        assertThat(scale).isEqualTo(2.0f / 448f);
        assertThat(TileQuant.quantize(-2.0f, scale)).isEqualTo((byte) 0xFE);
        assertThat(TileQuant.dequantize(TileQuant.quantize(-2.0f, scale), scale)).isEqualTo(-448f * scale);
    }

    @Test
    void allZeroTileHasScaleOne() {
        assertThat(TileQuant.scale(new float[4], 0, 4)).isEqualTo(1.0f);
    }
}
