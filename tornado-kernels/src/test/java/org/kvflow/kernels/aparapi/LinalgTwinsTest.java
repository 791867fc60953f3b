package org.kvflow.kernels.aparapi;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.linalg.GemmShape;
import org.kvflow.kernels.linalg.MatrixKernels;
import org.kvflow.kernels.linalg.RowKernels;
import org.kvflow.kernels.nsa.IndexerKernels;

/**
 * The dense twins (the matrix product, the indexer's many-head scores, the row kernels), run by
 * {@link WorkGroups} as work-groups would run them, against their Java references: edges
 * that are not multiples of a tile, batches with offsets, a transposed and a gathered B with a
 * padded row, fewer heads than a tile, segments with strides.
 */
class LinalgTwinsTest {
    private static final Random RND = new Random(33);

    private static void run(Supplier<AparapiTask> twin, List<Object> args) {
        AparapiTask kernel = twin.get();
        kernel.bind(args);
        WorkGroups.run(kernel);
    }

    private static float[] random(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) RND.nextGaussian();
        }
        return v;
    }

    private static void assertClose(float[] got, float[] want, float tolerance, String what) {
        assertThat(got).hasSameSizeAs(want);
        for (int i = 0; i < want.length; i++) {
            if (Math.abs(got[i] - want[i]) > tolerance * (1 + Math.abs(want[i]))) {
                throw new AssertionError(what + "[" + i + "]: " + got[i] + " vs " + want[i]);
            }
        }
    }

    private static float[] gemmBoth(GemmShape shape, float[] a, float[] b, int[] rows, int cSize) {
        FloatArray want = new FloatArray(cSize);
        MatrixKernels.gemm(FloatArray.fromArray(a), FloatArray.fromArray(b), IntArray.fromArray(rows), shape.toArray(), want);
        FloatArray got = new FloatArray(cSize);
        run(GemmAparapi::new, List.of(FloatArray.fromArray(a), FloatArray.fromArray(b), IntArray.fromArray(rows), shape.toArray(), got));
        assertClose(got.toHeapArray(), want.toHeapArray(), 1e-5f, "gemm " + shape);
        return want.toHeapArray();
    }

    @Test
    void theProductTwinComputesWhatTheReferenceDoesForEveryAddressing() {
        float[] plain = gemmBoth(GemmShape.plain(70, 130, 45), random(70 * 45), random(130 * 45), new int[1], 70 * 130);
        // the reference against a triple loop, once
        float[] a = random(3 * 4);
        float[] b = random(5 * 4);
        float[] c = gemmBoth(GemmShape.plain(3, 5, 4), a, b, new int[1], 15);
        for (int m = 0; m < 3; m++) {
            for (int n = 0; n < 5; n++) {
                float acc = 0;
                for (int k = 0; k < 4; k++) {
                    acc += a[m * 4 + k] * b[n * 4 + k];
                }
                assertThat(c[m * 5 + n]).isEqualTo(acc);
            }
        }
        assertThat(plain).isNotEmpty();
        // two batches, offsets and strides, B transposed (K × N) and gathered with a padded row
        int m = 66;
        int n = 40;
        int k = 70;
        int[] rows = new int[2 * k];
        for (int i = 0; i < rows.length; i++) {
            rows[i] = i % 17 == 5 ? -1 : RND.nextInt(90);
        }
        GemmShape gathered = new GemmShape(m, n, k, 2, k + 3, n + 2, n + 1, 5, 7, 3, m * (k + 3), 0, m * (n + 1), true, true, k);
        gemmBoth(gathered, random(5 + 2 * m * (k + 3)), random(7 + 90 * (n + 2)), rows, 3 + 2 * m * (n + 1));
        GemmShape rowsGathered = new GemmShape(m, n, k, 2, k, k, n, 0, 0, 0, m * k, 0, m * n, false, true, n);
        int[] picked = new int[2 * n];
        for (int i = 0; i < picked.length; i++) {
            picked[i] = i == 3 ? -1 : RND.nextInt(50);
        }
        gemmBoth(rowsGathered, random(2 * m * k), random(50 * k), picked, 2 * m * n);
    }

    @Test
    void theManyHeadScoreTwinComputesWhatTheReferenceDoes() {
        int heads = 5;
        int dim = 40;
        int nq = 3;
        int nk = 150;
        float[] q = random(nq * heads * dim);
        float[] w = random(nq * heads);
        byte[] keys = new byte[nk * dim];
        RND.nextBytes(keys);
        for (int i = 0; i < keys.length; i++) {
            keys[i] = (byte) (keys[i] & 0xF7); // no NaN codes
        }
        float[] scales = random(nk);
        IntArray shape = IntArray.fromArray(new int[] {heads, dim, nq, nk});
        FloatArray want = new FloatArray(nq * nk);
        IndexerKernels.scoreHeads(FloatArray.fromArray(q), FloatArray.fromArray(w), ByteArray.fromArray(keys), FloatArray.fromArray(scales), shape, want);
        FloatArray got = new FloatArray(nq * nk);
        run(ScoreHeadsAparapi::new, List.of(FloatArray.fromArray(q), FloatArray.fromArray(w), ByteArray.fromArray(keys), FloatArray.fromArray(scales),
                shape, got));
        assertClose(got.toHeapArray(), want.toHeapArray(), 1e-4f, "scores");
        assertThat(want.toHeapArray()).as("the case scores something").isNotEqualTo(new float[nq * nk]);
    }

    @Test
    void theRowTwinsComputeWhatTheReferencesDo() {
        IntArray seg = IntArray.fromArray(new int[] {6, 16, 20, 2});
        float[] x = random(2 + 6 * 20);
        float[] g = random(16);
        float[] bias = random(16);
        FloatArray want = FloatArray.fromArray(x.clone());
        RowKernels.rmsNormRows(want, FloatArray.fromArray(g), seg);
        FloatArray got = FloatArray.fromArray(x.clone());
        run(() -> new RowsAparapi(RowsAparapi.RMS), List.of(got, FloatArray.fromArray(g), seg));
        assertClose(got.toHeapArray(), want.toHeapArray(), 1e-5f, "rms");
        want = FloatArray.fromArray(x.clone());
        RowKernels.layerNormRows(want, FloatArray.fromArray(g), FloatArray.fromArray(bias), seg);
        FloatArray layer = FloatArray.fromArray(x.clone());
        run(() -> new RowsAparapi(RowsAparapi.LAYER), List.of(layer, FloatArray.fromArray(g), FloatArray.fromArray(bias), seg));
        assertClose(layer.toHeapArray(), want.toHeapArray(), 1e-5f, "layer norm");
        want = FloatArray.fromArray(x.clone());
        RowKernels.hadamardRows(want, seg);
        FloatArray had = FloatArray.fromArray(x.clone());
        run(() -> new RowsAparapi(RowsAparapi.HADAMARD), List.of(had, seg));
        assertClose(had.toHeapArray(), want.toHeapArray(), 1e-5f, "hadamard");
        float[] freqs = {1f, 0.3f, 0.01f, 0.002f};
        IntArray positions = IntArray.fromArray(new int[] {0, 7, 1000});
        IntArray rope = IntArray.fromArray(new int[] {6, 8, 20, 2, 2, 9, 1});
        FloatArray wantDst = new FloatArray(1 + 6 * 9);
        RowKernels.ropeRows(FloatArray.fromArray(x.clone()), wantDst, FloatArray.fromArray(freqs), positions, rope);
        FloatArray gotDst = new FloatArray(1 + 6 * 9);
        run(() -> new RowsAparapi(RowsAparapi.ROPE), List.of(FloatArray.fromArray(x.clone()), gotDst, FloatArray.fromArray(freqs), positions, rope));
        assertClose(gotDst.toHeapArray(), wantDst.toHeapArray(), 1e-5f, "rope");
        FloatArray inPlace = FloatArray.fromArray(x.clone());
        IntArray same = IntArray.fromArray(new int[] {6, 8, 20, 2, 2, 20, 2});
        run(() -> new RowsAparapi(RowsAparapi.ROPE), List.of(inPlace, inPlace, FloatArray.fromArray(freqs), positions, same));
        FloatArray inPlaceWant = FloatArray.fromArray(x.clone());
        RowKernels.ropeRows(inPlaceWant, inPlaceWant, FloatArray.fromArray(freqs), positions, same);
        assertClose(inPlace.toHeapArray(), inPlaceWant.toHeapArray(), 1e-5f, "rope in place");
        float[] logits = random(4 * 10);
        IntArray counts = IntArray.fromArray(new int[] {10, 3});
        IntArray soft = IntArray.fromArray(new int[] {4, 10, 2});
        FloatArray softWant = FloatArray.fromArray(logits.clone());
        MatrixKernels.softmaxRows(softWant, FloatArray.fromArray(new float[] {0.7f}), counts, soft);
        FloatArray softGot = FloatArray.fromArray(logits.clone());
        run(() -> new RowsAparapi(RowsAparapi.SOFTMAX), List.of(softGot, FloatArray.fromArray(new float[] {0.7f}), counts, soft));
        assertClose(softGot.toHeapArray(), softWant.toHeapArray(), 1e-5f, "softmax");
        assertThat(softWant.toHeapArray()[2 * 10 + 3]).as("past a row's count: zero").isZero();
    }
}
