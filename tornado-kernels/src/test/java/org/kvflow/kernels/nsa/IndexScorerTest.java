package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.AcceleratorUnderTest;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.quant.TileQuant;

/** Indexer scores on OpenCL against the Java reference (rounding bound stated below), top-k equal, bad shapes refused. */
class IndexScorerTest {
    /** Bound: another summation order (tiles, tensor cores, fused multiply-adds) changes a sum by rounding only. */
    private static final float RELATIVE = IndexerKernels.SCORE_TOLERANCE;

    private record Keys(byte[] codes, float[] scales, float[] dequantised) {}

    private static Keys keys(Random rnd, int n, int dim) {
        int blocks = KvLayout.tiles(dim);
        byte[] codes = new byte[n * dim];
        float[] scales = new float[n * blocks];
        float[] deq = new float[n * dim];
        float[] row = new float[dim];
        for (int j = 0; j < n; j++) {
            for (int d = 0; d < dim; d++) {
                row[d] = (float) rnd.nextGaussian();
            }
            for (int b = 0; b < blocks; b++) {
                int from = b * KvLayout.QUANT_TILE;
                int len = Math.min(KvLayout.QUANT_TILE, dim - from);
                float scale = TileQuant.scale(row, from, len);
                scales[j * blocks + b] = scale;
                for (int d = from; d < from + len; d++) {
                    codes[j * dim + d] = TileQuant.quantize(row[d], scale);
                    deq[j * dim + d] = TileQuant.dequantize(codes[j * dim + d], scale);
                }
            }
        }
        return new Keys(codes, scales, deq);
    }

    private static float[] gaussian(Random rnd, int n) {
        float[] x = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (float) rnd.nextGaussian();
        }
        return x;
    }

    @Test
    void javaScoresEqualTheDotReferenceBitForBit() {
        Random rnd = new Random(3);
        int dim = 200;
        Keys k = keys(rnd, 37, dim);
        float[] q = gaussian(rnd, 2 * dim);
        try (IndexScorer scorer = new IndexScorer(dim, Devices.java())) {
            float[] scores = scorer.scores(q, k.codes(), k.scales());
            for (int i = 0; i < 2; i++) {
                for (int j = 0; j < 37; j++) {
                    float expected = IndexerKernels.dot(Arrays.copyOfRange(q, i * dim, (i + 1) * dim), k.dequantised(), j * dim, dim);
                    assertThat(scores[i * 37 + j]).isEqualTo(expected);
                }
            }
        }
    }

    /**
     * Key counts not a multiple of the work-group, tails of a 128-wide scale block, no keys at all,
     * odd key counts, query counts past one block of 128; on cuda the dims that are a multiple of 16
     * up to 128 run the prebuilt tensor-core kernel, the others the twin.
     */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"128, 3, 1000, 64", "200, 2, 257, 16", "7, 4, 1, 1", "128, 2, 0, 8", "576, 1, 300, 300",
            "16, 5, 1001, 32", "48, 17, 333, 20", "112, 130, 517, 100", "128, 129, 2051, 300", "144, 3, 40, 8"})
    void openClScoresAndTopKMatchTheJavaReference(int dim, int queries, int keys, int topK) {
        Device cl = AcceleratorUnderTest.get();
        Random rnd = new Random(dim * 1000L + keys);
        Keys k = keys(rnd, keys, dim);
        float[] q = gaussian(rnd, queries * dim);
        try (IndexScorer java = new IndexScorer(dim, Devices.java());
             IndexScorer opencl = new IndexScorer(dim, cl)) {
            assertScoresClose(java, opencl, q, k, dim);
            assertSameTopK(java, opencl, q, k, topK, dim);
            Keys fewer = keys(rnd, Math.max(0, keys / 2), dim); // a smaller shape reuses the same buffers and kernel
            assertSameTopK(java, opencl, Arrays.copyOf(q, dim), fewer, topK, dim);
            // back to the first shape with new queries: nothing kept from the smaller call's launch may answer
            assertScoresClose(java, opencl, gaussian(rnd, queries * dim), k, dim);
        }
    }

    private static void assertScoresClose(IndexScorer java, IndexScorer device, float[] q, Keys k, int dim) {
        int keys = k.codes().length / dim;
        float[] expected = java.scores(q, k.codes(), k.scales()).clone();
        float[] actual = device.scores(q, k.codes(), k.scales());
        assertThat(actual).hasSameSizeAs(expected);
        for (int i = 0; i < expected.length; i++) {
            int qi = i / keys;
            float magnitude = 0;
            for (int d = 0; d < dim; d++) {
                magnitude += Math.abs(q[qi * dim + d] * k.dequantised()[(i % keys) * dim + d]);
            }
            assertThat(actual[i]).as("score %d", i).isCloseTo(expected[i], org.assertj.core.data.Offset.offset(RELATIVE * magnitude + 1e-30f));
        }
    }

    /**
     * Every fp8 code but the two NaNs, key scales from 2⁻²⁰ to 2¹⁰, and query rows from 10⁻³⁰ to
     * 10³⁰: the device's scores stay within the tolerance of the reference's (the cuda kernel scales
     * each row by a power of two before it splits it into fp16 parts, so no row leaves their range).
     */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"128", "32", "200"})
    void everyCodeAndEveryMagnitudeScoresWithinTheTolerance(int dim) {
        Device device = AcceleratorUnderTest.get();
        int keys = 254;
        int blocks = KvLayout.tiles(dim);
        byte[] codes = new byte[keys * dim];
        float[] scales = new float[keys * blocks];
        for (int j = 0; j < keys; j++) {
            for (int d = 0; d < dim; d++) {
                int code = (j + 7 * d) % 254;
                codes[j * dim + d] = (byte) (code < 0x7F ? code : code + 1); // skips 0x7F; 254 codes end before 0xFF
            }
            for (int b = 0; b < blocks; b++) {
                scales[j * blocks + b] = (float) Math.scalb(1.0 + (j % 10) / 10.0, -20 + j % 31);
            }
        }
        Random rnd = new Random(dim);
        int queries = 7;
        float[] q = new float[queries * dim];
        for (int i = 0; i < queries; i++) {
            for (int d = 0; d < dim; d++) {
                q[i * dim + d] = (float) (rnd.nextGaussian() * Math.pow(10, -30 + 10 * i));
            }
        }
        try (IndexScorer java = new IndexScorer(dim, Devices.java());
             IndexScorer other = new IndexScorer(dim, device)) {
            float[] expected = java.scores(q, codes, scales).clone();
            float[] actual = other.scores(q, codes, scales);
            for (int i = 0; i < expected.length; i++) {
                int qi = i / keys;
                int j = i % keys;
                float magnitude = 0;
                for (int d = 0; d < dim; d++) {
                    magnitude += Math.abs(q[qi * dim + d] * TileQuant.dequantize(codes[j * dim + d], scales[j * blocks + d / KvLayout.QUANT_TILE]));
                }
                assertThat(actual[i]).as("query %d key %d on %s", qi, j, device)
                        .isCloseTo(expected[i], org.assertj.core.data.Offset.offset(RELATIVE * magnitude + Float.MIN_NORMAL));
            }
        }
    }

    /** Each query's device top-k is the reference's, but for swaps among scores within the tolerance of the k-th best. */
    private static void assertSameTopK(IndexScorer java, IndexScorer device, float[] q, Keys k, int topK, int dim) {
        int[][] expected = java.topK(q, k.codes(), k.scales(), topK);
        int[][] actual = device.topK(q, k.codes(), k.scales(), topK);
        float[] scores = java.scores(q, k.codes(), k.scales()).clone();
        int keys = k.codes().length / dim;
        for (int i = 0; i < expected.length; i++) {
            float[] row = Arrays.copyOfRange(scores, i * keys, (i + 1) * keys);
            float magnitude = 0;
            for (int j = 0; j < keys; j++) {
                float m = 0;
                for (int d = 0; d < dim; d++) {
                    m += Math.abs(q[i * dim + d] * k.dequantised()[j * dim + d]);
                }
                magnitude = Math.max(magnitude, m);
            }
            assertThat(IndexerKernels.sameTopKWithin(expected[i], actual[i], row, 2 * RELATIVE * magnitude))
                    .as("query %d: %s against %s", i, Arrays.toString(actual[i]), Arrays.toString(expected[i])).isTrue();
        }
    }

    /**
     * The same shape scored call after call, new queries each time: on cuda the first call launches
     * directly, the second is captured as a graph and the later ones replay it, and each must score
     * its own queries, not the ones captured.
     */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"128", "200"})
    void aShapeScoredCallAfterCallScoresEachCallsQueries(int dim) {
        Device device = AcceleratorUnderTest.get();
        Random rnd = new Random(dim);
        Keys k = keys(rnd, 1001, dim);
        try (IndexScorer java = new IndexScorer(dim, Devices.java());
             IndexScorer other = new IndexScorer(dim, device)) {
            for (int call = 0; call < 4; call++) {
                assertScoresClose(java, other, gaussian(rnd, 5 * dim), k, dim);
            }
        }
    }

    @Test
    void aTopKAgreesWhenItSwapsOnlyNearTiesAtTheThreshold() {
        float[] scores = {5f, 1f, 3f, 2.9999f, 0f};
        int[] expected = IndexerKernels.topK(scores, 5, 2);
        assertThat(expected).containsExactly(0, 2);
        assertThat(IndexerKernels.sameTopKWithin(expected, new int[] {0, 2}, scores, 0f)).isTrue();
        assertThat(IndexerKernels.sameTopKWithin(expected, new int[] {0, 3}, scores, 1e-3f)).as("a swap within the bound").isTrue();
        assertThat(IndexerKernels.sameTopKWithin(expected, new int[] {0, 3}, scores, 1e-5f)).as("the same swap beyond it").isFalse();
        assertThat(IndexerKernels.sameTopKWithin(expected, new int[] {2, 3}, scores, 1e-3f)).as("the best one lost").isFalse();
        assertThat(IndexerKernels.sameTopKWithin(expected, new int[] {0, 0}, scores, 1e-3f)).as("a position twice").isFalse();
        assertThat(IndexerKernels.sameTopKWithin(expected, new int[] {0}, scores, 1e-3f)).as("one short").isFalse();
    }

    @Test
    void inputsOfTheWrongLengthAreRefusedBeforeAnyLaunch() {
        assertThatThrownBy(() -> new IndexScorer(0, Devices.java())).isInstanceOf(IllegalArgumentException.class).hasMessage("indexer dim=0 is not usable");
        try (IndexScorer scorer = new IndexScorer(130, Devices.java())) {
            assertThatThrownBy(() -> scorer.scores(new float[259], new byte[390], new float[6])).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("queries: 259 values is not a whole number of rows of dim 130");
            assertThatThrownBy(() -> scorer.scores(new float[260], new byte[390], new float[3])).hasMessage(
                    "key scales: 3 values for 3 keys of dim 130; expected 6");
            assertThat(scorer.scores(new float[260], new byte[390], new float[6])).hasSize(6);
        }
        try (IndexScorer wide = new IndexScorer(1, Devices.java())) {
            assertThatThrownBy(() -> wide.scores(new float[50_000], new byte[50_000], new float[50_000]))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("50000 queries × 50000 keys do not fit one score array");
            // keys filled on the device are a count, not an array: the same bounds, checked before anything is filled
            IndexScorer.KeyFill never = (codes, scales) -> {
                throw new AssertionError("a refused call filled keys");
            };
            float[] two = new float[2];
            assertThatThrownBy(() -> wide.topK(two, Integer.MAX_VALUE, never, new int[] {1, 1}, 1)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("2 queries × 2147483647 keys do not fit one score array");
            assertThatThrownBy(() -> wide.topK(two, 4, never, new int[] {1, 1}, Integer.MAX_VALUE)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("2 queries × top 2147483647 do not fit one selection array");
            assertThatThrownBy(() -> wide.topK(two, 4, never, new int[] {1, 1}, 0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("topK=0 must be >= 1");
            assertThatThrownBy(() -> wide.topK(two, new byte[4], new float[4], new int[] {1, 1}, 0)).hasMessage("topK=0 must be >= 1");
            assertThatThrownBy(() -> wide.topK(two, -1, never, new int[] {1, 1}, 1)).hasMessage("keys=-1 is negative");
        }
    }
}
