package org.kvflow.kernels.quant;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class Bf16Test {
    @Test
    void roundsToNearestEvenAndKeepsNan() {
        assertThat(Bf16.encode(1.0f)).isEqualTo((short) 0x3F80);
        // 1 + 2^-8 is halfway between 1.0 and 1 + 2^-7: ties to even (1.0)
        assertThat(Bf16.encode(1.00390625f)).isEqualTo((short) 0x3F80);
        // 1 + 3·2^-8 is halfway between 1+2^-7 (odd) and 1+2^-6: ties to even (up)
        assertThat(Bf16.encode(1.01171875f)).isEqualTo((short) 0x3F82);
        assertThat(Bf16.encode(Float.NaN)).isEqualTo((short) 0x7FC0);
        assertThat(Bf16.encode(-2.0f)).isEqualTo((short) 0xC000);
        assertThat(Bf16.decode((short) 0xC000)).isEqualTo(-2.0f);
        assertThat(Bf16.decode(Bf16.encode(3.140625f))).isEqualTo(3.140625f);
    }
}
