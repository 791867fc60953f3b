package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.AcceleratorUnderTest;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;

/** Top-k of many rows on OpenCL equals the Java reference exactly: ties, special values, causal counts, rows shorter than k. */
class TopKRowsTest {
    private static Device openCl() {
        Device cl = AcceleratorUnderTest.get();
        return cl;
    }

    /** Runs {@code topKRows} on {@code device} and returns the selection array. */
    private static int[] run(Device device, float[] scores, int[] counts, int nk, int k) {
        FloatArray s = FloatArray.fromArray(scores);
        IntArray c = IntArray.fromArray(counts);
        IntArray shape = IntArray.fromArray(new int[] {counts.length, nk, k});
        IntArray selected = new IntArray(counts.length * k);
        TaskGraph graph = new TaskGraph("indexer").transferToDevice(DataTransferMode.EVERY_EXECUTION, s, c, shape)
                .task("topK", IndexerKernels::topKRows, s, c, shape, selected)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, selected);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(device)) {
            plan.execute();
        }
        return selected.toHeapArray();
    }

    /** Scores drawn from {@code distinct} values (few distinct values: many ties at the threshold). */
    private static float[] scores(Random rnd, int n, int distinct) {
        float[] s = new float[n];
        for (int i = 0; i < n; i++) {
            s[i] = distinct == 0 ? (float) rnd.nextGaussian() * 3f : rnd.nextInt(distinct) - distinct / 2f;
        }
        return s;
    }

    @Test
    void javaRowsAreEachRowsTopKPaddedWithMinusOne() {
        float[] scores = {1f, 5f, 5f, -2f, /* row 1 */ 7f, 5f, 0f, 0f};
        int[] selected = run(Devices.java(), scores, new int[] {4, 1}, 4, 3);
        assertThat(selected).containsExactly(0, 1, 2, /* row 1 sees one key */ 0, -1, -1);
    }

    /** Rows longer and shorter than k, lengths off the work-group size, heavy ties, causal counts. */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"3, 1000, 64, 0", "5, 257, 16, 3", "4, 5000, 2048, 0", "2, 3000, 2048, 7", "6, 300, 300, 0", "1, 1, 1, 0",
            "3, 70000, 2048, 0", "2, 4097, 100, 1"})
    void openClSelectsExactlyWhatTheReferenceSelects(int rows, int nk, int k, int distinct) {
        Random rnd = new Random(rows * 7919L + nk + k);
        float[] scores = scores(rnd, rows * nk, distinct);
        int[] counts = new int[rows];
        for (int q = 0; q < rows; q++) {
            counts[q] = q == 0 ? nk : rnd.nextInt(nk + 1); // a causal query sees a prefix
        }
        assertThat(run(openCl(), scores, counts, nk, k)).isEqualTo(run(Devices.java(), scores, counts, nk, k));
    }

    /** −0 ties with +0, NaN ranks above +∞, subnormals and negatives keep their order. */
    @Tag("accelerator")
    @Test
    void openClOrdersSpecialValuesAsTheReference() {
        float[] special = {-0.0f, 0.0f, Float.NaN, Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.MIN_VALUE,
                -Float.MIN_VALUE, Float.MIN_NORMAL, Math.nextDown(Float.MIN_NORMAL), Float.MAX_VALUE, -Float.MAX_VALUE, 1f,
                Math.nextUp(1f), Math.nextDown(1f), 2f, Math.nextDown(2f), -1f, -2f, 3e-39f, 0x1p-130f};
        Random rnd = new Random(5);
        int nk = 600;
        float[] scores = new float[nk];
        for (int i = 0; i < nk; i++) {
            scores[i] = special[rnd.nextInt(special.length)];
        }
        int[] counts = {nk};
        for (int k = 1; k < nk; k += 37) {
            assertThat(run(openCl(), scores, counts, nk, k)).as("k=%d", k).isEqualTo(run(Devices.java(), scores, counts, nk, k));
        }
    }

    /**
     * One plan executed again after its shape changed (rows, k, rows cut into segments or not)
     * selects what the reference selects for each shape: nothing from an earlier launch's grid is
     * kept (on cuda a kernel of several passes is replayed as a captured graph, captured again when
     * its grid changes; fewer rows first, so a stale grid would leave rows unselected).
     */
    @Tag("accelerator")
    @Test
    void onePlanSelectsForEachShapeItIsGivenInTurn() {
        int nk = 70_000;
        int maxRows = 4;
        Random rnd = new Random(17);
        float[] values = scores(rnd, maxRows * nk, 0);
        FloatArray s = FloatArray.fromArray(values);
        IntArray c = new IntArray(maxRows);
        IntArray shape = new IntArray(3);
        IntArray selected = new IntArray(maxRows * 40_000);
        TaskGraph graph = new TaskGraph("indexer").transferToDevice(DataTransferMode.EVERY_EXECUTION, s, c, shape)
                .task("topK", IndexerKernels::topKRows, s, c, shape, selected)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, selected);
        int[][] shapes = {{2, 2048}, {4, 2048}, {4, 40_000}, {1, 2048}, {4, 1000}};
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(openCl())) {
            for (int[] rowsAndK : shapes) {
                int rows = rowsAndK[0];
                int k = rowsAndK[1];
                int[] counts = new int[rows];
                for (int q = 0; q < rows; q++) {
                    counts[q] = nk - rnd.nextInt(nk / 4);
                    c.set(q, counts[q]);
                }
                shape.set(0, rows);
                shape.set(1, nk);
                shape.set(2, k);
                plan.execute();
                int[] expected = run(Devices.java(), Arrays.copyOf(values, rows * nk), counts, nk, k);
                assertThat(Arrays.copyOf(selected.toHeapArray(), rows * k)).as("%d rows, k=%d", rows, k).isEqualTo(expected);
            }
        }
    }

    @Tag("accelerator")
    @Test
    void indexScorerSelectsOnTheDeviceAsOnJavaWithCausalCounts() {
        Random rnd = new Random(9);
        int dim = 128;
        int nk = 700;
        float[] q = scores(rnd, 3 * dim, 0);
        byte[] codes = new byte[nk * dim];
        rnd.nextBytes(codes);
        for (int i = 0; i < codes.length; i++) {
            codes[i] &= 0x77; // no NaN codes
        }
        float[] scales = new float[nk];
        Arrays.fill(scales, 0.5f);
        int[] counts = {nk, 1, 333};
        try (IndexScorer java = new IndexScorer(dim, Devices.java()); IndexScorer cl = new IndexScorer(dim, openCl())) {
            int[][] expected = java.topK(q, codes, scales, counts, 64);
            assertThat(expected[1]).containsExactly(0);
            assertThat(cl.topK(q, codes, scales, counts, 64)).isDeepEqualTo(expected);
            assertThat(cl.scores(q, codes, scales)).hasSize(3 * nk); // scores alone still come back
        }
    }

    @Test
    void badCountsAndKAreRefusedBeforeAnyLaunchNamingTheQuery() {
        try (IndexScorer scorer = new IndexScorer(4, Devices.java())) {
            float[] q = new float[8];
            byte[] k = new byte[12];
            float[] s = new float[3];
            assertThatThrownBy(() -> scorer.topK(q, k, s, new int[] {3, 4}, 2)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("query 1: key count 4 outside [0, 3]");
            assertThatThrownBy(() -> scorer.topK(q, k, s, new int[] {3}, 2)).hasMessage("1 key counts for 2 queries");
            assertThatThrownBy(() -> scorer.topK(q, k, s, new int[] {3, 3}, 0)).hasMessage("topK=0 must be >= 1");
            assertThat(scorer.topK(q, k, s, new int[] {3, 0}, 2)).isDeepEqualTo(new int[][] {{0, 1}, {}});
        }
        try (IndexScorer wide = new IndexScorer(1, Devices.java())) {
            assertThatThrownBy(() -> wide.topK(new float[50_000], new byte[2], new float[2], 50_000))
                    .isInstanceOf(IllegalArgumentException.class).hasMessage("50000 queries × top 50000 do not fit one selection array");
        }
    }
}
