package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.AcceleratorUnderTest;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionProfile;
import org.kvflow.kernels.quant.Fp8E4m3;

/**
 * The attention step as one graph selects what the indexer's reference selects and attends as the
 * reference does; between the steps nothing crosses the host: a run sends the queries and brings
 * back the outputs.
 */
class AttentionChainTest {
    private static final AttentionChain.Shape SHAPE = new AttentionChain.Shape(64, 40, 32, 5, 300, 17);

    private record Inputs(byte[] codes, float[] scales, float[] rows, float[] indexQueries, float[] queries) {}

    private static Inputs inputs(long seed) {
        Random rnd = new Random(seed);
        byte[] codes = new byte[SHAPE.keys() * SHAPE.indexDim()];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = Fp8E4m3.encode((float) rnd.nextGaussian());
        }
        float[] scales = new float[SHAPE.keys() * KvLayout.tiles(SHAPE.indexDim())];
        for (int i = 0; i < scales.length; i++) {
            scales[i] = 0.5f + rnd.nextFloat();
        }
        return new Inputs(codes, scales, gaussian(rnd, SHAPE.keys() * SHAPE.width()), gaussian(rnd, SHAPE.queries() * SHAPE.indexDim()),
                gaussian(rnd, SHAPE.queries() * SHAPE.width()));
    }

    private static float[] gaussian(Random rnd, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) rnd.nextGaussian();
        }
        return v;
    }

    /** The reference: the indexer's top-k through IndexScorer, then attention over the rows it picked. */
    private static float[] reference(Inputs in, int[] selectedOut) {
        int[][] picked;
        try (IndexScorer scorer = new IndexScorer(SHAPE.indexDim(), Devices.java())) {
            picked = scorer.topK(in.indexQueries(), in.codes(), in.scales(), SHAPE.topK());
        }
        float[] out = new float[SHAPE.queries() * SHAPE.latent()];
        int w = SHAPE.width();
        for (int q = 0; q < SHAPE.queries(); q++) {
            float[] rows = new float[SHAPE.topK() * w];
            for (int j = 0; j < SHAPE.topK(); j++) {
                selectedOut[q * SHAPE.topK() + j] = picked[q][j];
                System.arraycopy(in.rows(), picked[q][j] * w, rows, j * w, w);
            }
            float[] o = new float[SHAPE.latent()];
            AttentionKernels.attend(java.util.Arrays.copyOfRange(in.queries(), q * w, (q + 1) * w), rows, SHAPE.topK(), SHAPE.latent(), o);
            System.arraycopy(o, 0, out, q * SHAPE.latent(), SHAPE.latent());
        }
        return out;
    }

    private static void assertMatchesTheReference(Device device) {
        Inputs in = inputs(11);
        int[] expectedSelected = new int[SHAPE.queries() * SHAPE.topK()];
        float[] expected = reference(in, expectedSelected);
        try (AttentionChain chain = new AttentionChain(SHAPE, in.codes(), in.scales(), in.rows(), device)) {
            chain.run(in.indexQueries(), in.queries());
            ExecutionProfile steady = chain.run(in.indexQueries(), in.queries()).profile();
            assertThat(chain.selected()).isEqualTo(expectedSelected);
            float[] out = chain.out();
            for (int i = 0; i < expected.length; i++) {
                assertThat(out[i]).as("output %d", i).isCloseTo(expected[i], Offset.offset(2e-5f));
            }
            assertThat(steady.taskNanos()).containsOnlyKeys("attention.scores", "attention.topK", "attention.attend");
            switch (device.backend()) {
                case "java" -> assertThat(steady.hostBytes()).isZero();
                case "cuda" -> {
                    assertThat(steady.bytesToDevice()).isEqualTo(4L * SHAPE.queries() * (SHAPE.indexDim() + SHAPE.width()));
                    assertThat(steady.bytesToHost()).isEqualTo(4L * SHAPE.queries() * SHAPE.latent());
                }
                default -> assertThat(steady.bytesToHost()).isGreaterThan(4L * SHAPE.queries() * SHAPE.latent()); // Aparapi twins hand arrays over through the host
            }
        }
    }

    @Test
    void javaEqualsTheStepByStepReference() {
        assertMatchesTheReference(Devices.java());
    }

    @Tag("accelerator")
    @Test
    void theDeviceEqualsTheReferenceAndOnlyQueriesAndOutputsCrossTheHost() {
        assertMatchesTheReference(AcceleratorUnderTest.get());
    }

    @Test
    void inputsThatDoNotFitTheShapeAreRefusedNamingThem() {
        Inputs in = inputs(1);
        assertThatThrownBy(() -> new AttentionChain(SHAPE, new byte[3], in.scales(), in.rows(), Devices.java()))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("index key codes: 3 values; the shape needs 19200");
        assertThatThrownBy(() -> new AttentionChain.Shape(64, 40, 41, 5, 300, 17)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("attention chain indexDim=64 width=40 latent=41 queries=5 keys=300 topK=17: sizes must be positive, latent ≤ width and topK ≤ keys");
        try (AttentionChain chain = new AttentionChain(SHAPE, in.codes(), in.scales(), in.rows(), Devices.java())) {
            assertThatThrownBy(chain::selected).isInstanceOf(IllegalStateException.class).hasMessage("no run yet");
            assertThatThrownBy(() -> chain.run(new float[1], in.queries())).hasMessage("index queries: 1 values; the shape needs 320");
        }
    }
}
