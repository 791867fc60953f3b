package org.kvflow.kernels.aparapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The matrix-multiply intrinsic's Java body, run as a work-group would run it ({@link WorkGroups}),
 * against a plain triple loop: two calls accumulate into C, every entry of the {@code M × N} tile is
 * written, and each sum keeps the reference's ascending order (so the two agree exactly).
 */
class MmaTaskTest {
    /** Loads A and B from global arrays into the tiles, calls the intrinsic twice, writes C out. */
    static final class Probe extends MmaTask {
        float[] a = new float[TILE_M * TILE_K * 2];
        float[] b = new float[TILE_N * TILE_K * 2];
        float[] c = new float[TILE_M * TILE_N];

        @Override
        void bind(List<Object> args) {
            // driven directly by the test
        }

        @Override
        int globalSize() {
            return LOCAL;
        }

        @Override
        public void run() {
            int lid = getLocalId();
            for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
                tileC[(e / TILE_N) * C_STRIDE + e - (e / TILE_N) * TILE_N] = c[e];
            }
            for (int step = 0; step < 2; step++) {
                for (int e = lid; e < TILE_M * TILE_K; e += LOCAL) {
                    int m = e / TILE_K;
                    tileA[m * AB_STRIDE + e - m * TILE_K] = a[m * 2 * TILE_K + step * TILE_K + e - m * TILE_K];
                    tileB[m * AB_STRIDE + e - m * TILE_K] = b[m * 2 * TILE_K + step * TILE_K + e - m * TILE_K];
                }
                localBarrier();
                mmaTiles();
                localBarrier();
            }
            for (int e = lid; e < TILE_M * TILE_N; e += LOCAL) {
                c[e] = tileC[(e / TILE_N) * C_STRIDE + e - (e / TILE_N) * TILE_N];
            }
        }
    }

    @Test
    void theIntrinsicAddsATimesBTransposedToC() {
        Random rnd = new Random(5);
        Probe probe = new Probe();
        for (int i = 0; i < probe.a.length; i++) {
            probe.a[i] = (float) rnd.nextGaussian();
            probe.b[i] = (float) rnd.nextGaussian();
        }
        float[] start = new float[probe.c.length];
        for (int i = 0; i < start.length; i++) {
            start[i] = rnd.nextInt(7) - 3;
        }
        System.arraycopy(start, 0, probe.c, 0, start.length);
        WorkGroups.run(probe, AparapiTask.LOCAL, AparapiTask.LOCAL, 1);
        int depth = 2 * MmaShape.K;
        for (int m = 0; m < MmaShape.M; m++) {
            for (int n = 0; n < MmaShape.N; n++) {
                float expected = start[m * MmaShape.N + n];
                for (int k = 0; k < depth; k++) {
                    expected = expected + probe.a[m * depth + k] * probe.b[n * depth + k];
                }
                assertThat(probe.c[m * MmaShape.N + n]).as("C[%d][%d]", m, n).isCloseTo(expected, within(0f));
            }
        }
    }
}
