package org.kvflow.kernels.quant;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The decode table holds exactly what the codec decodes, code by code (NaN codes included, by bits). */
class Fp8TableTest {
    @Test
    void everyCodeLooksUpToItsDecodedValue() {
        for (int c = 0; c < 256; c++) {
            assertThat(Float.floatToRawIntBits(Fp8Table.value((byte) c))).as("code 0x%02x", c)
                    .isEqualTo(Float.floatToRawIntBits(Fp8E4m3.decode((byte) c)));
        }
        assertThat(Fp8Table.first(127)).hasSize(127).containsSequence(0f, Fp8E4m3.decode((byte) 1));
        assertThat(Fp8Table.value((byte) 0x7E)).isEqualTo(448f);
        assertThat(Fp8Table.value((byte) 0xFE)).isEqualTo(-448f);
    }
}
