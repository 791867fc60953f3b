package org.kvflow.kernels.aparapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.nsa.IndexerKernels;

/**
 * Both top-k twins, run in Java as work-groups ({@link WorkGroups}: local memory and barriers,
 * no GPU), select what the Java reference selects: the column-counter twin the OpenCL
 * device compiles, and the atomic-add twin only the cuda translation compiles, whose logic is
 * otherwise proven on the H200 alone. Ragged rows, causal counts, rows shorter than k, heavy ties,
 * and few rows (a row cut into segments, then merged).
 */
class TopKTwinsTest {
    private static int[] run(Supplier<TopKAparapi> twin, float[] scores, int[] counts, int nk, int k) {
        IntArray selected = new IntArray(counts.length * k);
        TopKAparapi kernel = twin.get();
        kernel.bind(List.of(FloatArray.fromArray(scores), IntArray.fromArray(counts), IntArray.fromArray(new int[] {counts.length, nk, k}),
                selected));
        WorkGroups.run(kernel);
        return selected.toHeapArray();
    }

    private static int[] reference(float[] scores, int[] counts, int nk, int k) {
        IntArray selected = new IntArray(counts.length * k);
        IndexerKernels.topKRows(FloatArray.fromArray(scores), IntArray.fromArray(counts), IntArray.fromArray(new int[] {counts.length, nk, k}),
                selected);
        return selected.toHeapArray();
    }

    @ParameterizedTest(name = "{0} rows × {1} keys, k={2}, {3} distinct values")
    @CsvSource({"3, 1500, 64, 0", "2, 3000, 100, 7", "5, 700, 300, 0", "1, 9000, 50, 3", "2, 3000, 2048, 0", "1, 20000, 1000, 5"})
    void bothTwinsSelectWhatTheReferenceSelects(int rows, int nk, int k, int distinct) {
        Random rnd = new Random(rows * 31L + nk);
        float[] scores = new float[rows * nk];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = distinct == 0 ? (float) rnd.nextGaussian() * 3f : rnd.nextInt(distinct) - distinct / 2f;
        }
        int[] counts = new int[rows];
        for (int q = 0; q < rows; q++) {
            counts[q] = q == 0 ? nk : rnd.nextInt(nk + 1); // the first row sees every key, the others a causal prefix
        }
        int[] expected = reference(scores, counts, nk, k);
        assertThat(run(TopKByColumns::new, scores, counts, nk, k)).as("column counters").isEqualTo(expected);
        assertThat(run(TopKByAtomics::new, scores, counts, nk, k)).as("atomic adds").isEqualTo(expected);
        assertThat(Arrays.stream(expected).filter(p -> p >= 0).count()).as("the case selects something").isPositive();
    }

    /**
     * A threshold bin kept whole ends the atomic twin's search early, its threshold the key just
     * below the bin: the scores are small integers, so a kept value (1.0) is exactly its bin's first
     * key, and k is the count of values from 1.0 up, so that bin is kept whole.
     */
    @Test
    void aBinKeptWholeKeepsTheKeyThatOpensIt() {
        int nk = 1000;
        Random rnd = new Random(17);
        float[] scores = new float[2 * nk];
        for (int i = 0; i < scores.length; i++) {
            scores[i] = rnd.nextInt(5) - 1; // -1, 0, 1, 2, 3
        }
        int k = 0;
        for (int j = 0; j < nk; j++) {
            k += scores[j] >= 1f ? 1 : 0;
        }
        int[] counts = {nk, nk};
        int[] expected = reference(scores, counts, nk, k);
        assertThat(run(TopKByAtomics::new, scores, counts, nk, k)).as("atomic adds").isEqualTo(expected);
        assertThat(run(TopKByColumns::new, scores, counts, nk, k)).as("column counters").isEqualTo(expected);
    }
    /**
     * The order key the twins compute without {@code Float.floatToIntBits} (which Aparapi cannot
     * translate) is that call's bits, mapped to an order-preserving int, for every kind of float:
     * both zeros, subnormals, each power of two and its neighbours (where the exponent from
     * {@code log2} is corrected), the largest finite values, infinities, NaN, and random bit patterns.
     */
    @Test
    void theOrderKeyIsTheFloatsBitsInOrderForEveryKindOfFloat() {
        TopKAparapi twin = new TopKByColumns();
        List<Float> values = new java.util.ArrayList<>(List.of(0.0f, -0.0f, Float.MIN_VALUE, Math.nextDown(Float.MIN_NORMAL), Float.MIN_NORMAL,
                Float.MAX_VALUE, Math.nextDown(Float.MAX_VALUE), Float.POSITIVE_INFINITY, Float.NaN, Float.intBitsToFloat(0x7F800001)));
        for (int e = -126; e <= 127; e++) {
            float p = Math.scalb(1.0f, e);
            values.addAll(List.of(p, Math.nextDown(p), Math.nextUp(p)));
        }
        Random random = new Random(5);
        for (int i = 0; i < 20_000; i++) {
            values.add(Float.intBitsToFloat(random.nextInt()));
        }
        int n = values.size();
        for (int i = 0; i < n; i++) {
            values.add(-values.get(i));
        }
        for (float x : values) {
            assertThat(twin.orderKey(x)).as("order key of %s (bits %08x)", x, Float.floatToRawIntBits(x)).isEqualTo(expectedKey(x));
        }
    }

    /** From the float's own bits: NaN as the positive quiet NaN, −0 as +0, negatives' magnitude bits flipped under the sign. */
    private static int expectedKey(float x) {
        if (Float.isNaN(x)) {
            return 0x7FC00000;
        }
        if (x == 0.0f) {
            return 0;
        }
        int magnitude = Float.floatToRawIntBits(x) & 0x7FFFFFFF;
        return x < 0 ? (Integer.MIN_VALUE | magnitude) ^ 0x7FFFFFFF : magnitude;
    }
}
