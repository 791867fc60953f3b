package org.kvflow.kernels.quant;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** contract §3.7 fp8 e4m3fn, checked against the format's definition. */
class Fp8E4m3Test {
    @Test
    void everyCodeDecodesAndReEncodesToItself() {
        for (int code = 0; code < 256; code++) {
            float value = Fp8E4m3.decode((byte) code);
            if ((code & 0x7F) == 0x7F) {
                assertThat(value).isNaN();
                continue;
            }
            assertThat(Fp8E4m3.encode(value) & 0xFF).as("code 0x%02x = %s", code, value).isEqualTo(code);
        }
    }

    @Test
    void knownValues() {
        assertThat(Fp8E4m3.decode((byte) 0x38)).isEqualTo(1.0f);
        assertThat(Fp8E4m3.decode((byte) 0x7E)).isEqualTo(448f);
        assertThat(Fp8E4m3.decode((byte) 0x01)).isEqualTo((float) Math.pow(2, -9));
        assertThat(Fp8E4m3.decode((byte) 0x08)).isEqualTo((float) Math.pow(2, -6));
        assertThat(Fp8E4m3.decode((byte) 0xB8)).isEqualTo(-1.0f);
    }

    @Test
    void saturatesNanAndSignedZero() {
        assertThat(Fp8E4m3.encode(1e9f)).isEqualTo((byte) 0x7E);
        assertThat(Fp8E4m3.encode(Float.POSITIVE_INFINITY)).isEqualTo((byte) 0x7E);
        assertThat(Fp8E4m3.encode(Float.NEGATIVE_INFINITY)).isEqualTo((byte) 0xFE);
        assertThat(Fp8E4m3.encode(449f)).isEqualTo((byte) 0x7E);
        assertThat(Fp8E4m3.encode(Float.NaN)).isEqualTo((byte) 0x7F);
        assertThat(Fp8E4m3.encode(-0.0f)).isEqualTo((byte) 0x80);
        assertThat(Fp8E4m3.encode(0.0f)).isEqualTo((byte) 0x00);
    }

    @Test
    void roundsToNearestEven() {
        // 1.0 and 1.125 are neighbours: the midpoint 1.0625 goes to the even mantissa (1.0)
        assertThat(Fp8E4m3.encode(1.0625f)).isEqualTo((byte) 0x38);
        // 1.125 and 1.25: midpoint 1.1875 goes to 1.25 (mantissa 2 is even)
        assertThat(Fp8E4m3.encode(1.1875f)).isEqualTo((byte) 0x3A);
        assertThat(Fp8E4m3.encode(1.07f)).isEqualTo((byte) 0x39);
        // subnormal midpoints: 0.5 and 1.5 quanta of 2^-9
        assertThat(Fp8E4m3.encode((float) Math.pow(2, -10))).isEqualTo((byte) 0x00);
        assertThat(Fp8E4m3.encode((float) (1.5 * Math.pow(2, -9)))).isEqualTo((byte) 0x02);
        // just below the smallest normal rounds up into it
        assertThat(Fp8E4m3.encode((float) (7.9 * Math.pow(2, -9)))).isEqualTo((byte) 0x08);
        // 440 is the midpoint of 416 and 448? no: 416 and 448 are neighbours, 432 the midpoint -> 448 (even 6)
        assertThat(Fp8E4m3.encode(432f)).isEqualTo((byte) 0x7E);
        assertThat(Fp8E4m3.encode(-432f)).isEqualTo((byte) 0xFE);
    }

    @Test
    void encodingIsMonotone() {
        float previous = -448f;
        for (float x = -460f; x <= 460f; x += 0.37f) {
            float decoded = Fp8E4m3.decode(Fp8E4m3.encode(x));
            assertThat(decoded).isGreaterThanOrEqualTo(previous);
            previous = decoded;
        }
    }
}
