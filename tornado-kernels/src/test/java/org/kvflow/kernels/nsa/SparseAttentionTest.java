package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.kernels.api.AcceleratorUnderTest;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;

/** MLA sparse attention: batch form equals the single-query reference; OpenCL within a stated bound. */
class SparseAttentionTest {
    /** Bound on outputs (each a convex combination of values of magnitude ≲ 5): exp and FMA rounding. */
    private static final float TOLERANCE = 2e-5f;

    private static float[] gaussian(Random rnd, int n, float scale) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) rnd.nextGaussian() * scale;
        }
        return x;
    }

    @Test
    void javaBatchEqualsTheSingleQueryReferenceBitForBit() {
        Random rnd = new Random(5);
        int width = 40;
        int latent = 32;
        float[] q = gaussian(rnd, 3 * width, 1f);
        float[] k = gaussian(rnd, 3 * 7 * width, 1f);
        try (SparseAttention attention = new SparseAttention(width, latent, Devices.java())) {
            float[] out = attention.attend(q, k, 7);
            for (int i = 0; i < 3; i++) {
                float[] expected = new float[latent];
                AttentionKernels.attend(Arrays.copyOfRange(q, i * width, (i + 1) * width),
                        Arrays.copyOfRange(k, i * 7 * width, (i + 1) * 7 * width), 7, latent, expected);
                assertThat(Arrays.copyOfRange(out, i * latent, (i + 1) * latent)).isEqualTo(expected);
            }
        }
    }

    /** Small dimensions, the real 512 + 64 latent layout, one key, more keys than a work-group. */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"40, 32, 3, 7", "576, 512, 2, 300", "576, 512, 1, 1", "24, 16, 5, 513", "576, 512, 0, 4"})
    void openClEqualsTheJavaReferenceWithinTheBound(int width, int latent, int queries, int selected) {
        Device cl = AcceleratorUnderTest.get();
        Random rnd = new Random(width * 7L + selected);
        float[] q = gaussian(rnd, queries * width, 0.2f);
        float[] k = gaussian(rnd, queries * selected * width, 1f);
        try (SparseAttention java = new SparseAttention(width, latent, Devices.java());
             SparseAttention opencl = new SparseAttention(width, latent, cl)) {
            assertClose(opencl.attend(q, k, selected), java.attend(q, k, selected));
            if (queries > 0 && selected > 1) { // a smaller shape on the same buffers and kernel
                float[] one = Arrays.copyOf(q, width);
                float[] fewer = Arrays.copyOf(k, (selected - 1) * width);
                assertClose(opencl.attend(one, fewer, selected - 1), java.attend(one, fewer, selected - 1));
            }
        }
    }

    private static void assertClose(float[] actual, float[] expected) {
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.length; i++) {
            assertThat(actual[i]).as("output %d", i).isCloseTo(expected[i], Offset.offset(TOLERANCE));
        }
    }

    @Test
    void badShapesAndInputsAreRefusedBeforeAnyLaunch() {
        assertThatThrownBy(() -> new SparseAttention(16, 32, Devices.java())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attention shape width=16 latent=32 is not usable (latent ≤ width)");
        try (SparseAttention attention = new SparseAttention(16, 8, Devices.java())) {
            assertThatThrownBy(() -> attention.attend(new float[32], new float[32], 0))
                    .hasMessage("selected=0: every query attends over at least one key");
            assertThatThrownBy(() -> attention.attend(new float[32], new float[95], 3)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("attention of width 16 over 3 keys: 32 query values must be whole rows and the keys 96 values, got 95");
            assertThat(attention.attend(new float[32], new float[96], 3)).hasSize(16);
            assertThatThrownBy(() -> attention.attend(new float[16], Integer.MAX_VALUE, region -> {
                throw new AssertionError("a refused call filled keys");
            })).isInstanceOf(IllegalArgumentException.class).hasMessage("2147483647 selected key rows of width 16 do not fit one array");
        }
        assertThatThrownBy(() -> new SparseAttention(0, 1, Devices.java())).hasMessage("attention shape width=0 latent=1 is not usable (latent ≤ width)");
        assertThatThrownBy(() -> new SparseAttention(4, 0, Devices.java())).hasMessage("attention shape width=4 latent=0 is not usable (latent ≤ width)");
        try (SparseAttention whole = new SparseAttention(4, 4, Devices.java())) {
            assertThat(whole.attend(new float[4], new float[4], 1)).as("latent = width: the whole row is the value").hasSize(4);
        }
    }
}
