package org.kvflow.kernels.nsa;

import java.util.SplittableRandom;
import java.util.stream.IntStream;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;

/**
 * The key side of the synthetic NSA/MLA layer (contract §3.8) as a kernel over a batch of tokens:
 * the same floats as {@link SyntheticNsaLayer#key}, which stays the definition.
 */
public final class SyntheticKernels {
    private SyntheticKernels() {}

    /**
     * With {@code shape = {hidden, C, R, I, tokens}}: token {@code t}'s input from the generator
     * seeded {@code inputSeeds[t]}, projected by {@code weights}
     * ({@link SyntheticNsaLayer#keyWeights}), rope applied with {@code cosSin[t·R ..]}
     * ({@link SyntheticNsaLayer#ropeCosSin}); {@code out} row {@code t} = latent ‖ rope ‖ index key.
     */
    public static void keys(LongArray inputSeeds, FloatArray weights, FloatArray cosSin, IntArray shape, FloatArray out) {
        int hidden = shape.get(0);
        int latent = shape.get(1);
        int rope = shape.get(2);
        int width = latent + rope + shape.get(3);
        IntStream.range(0, shape.get(4)).parallel().forEach(t -> {
            SplittableRandom g = new SplittableRandom(inputSeeds.get(t));
            float[] x = new float[hidden];
            for (int h = 0; h < hidden; h++) {
                x[h] = (float) (2.0 * g.nextDouble() - 1.0);
            }
            for (int j = 0; j < width; j++) {
                float acc = 0.0f;
                for (int h = 0; h < hidden; h++) {
                    float product = x[h] * weights.get(h * width + j);
                    acc = acc + product;
                }
                out.set(t * width + j, acc);
            }
            for (int j = 0; j < rope / 2; j++) {
                int at = t * width + latent + 2 * j;
                float c = cosSin.get(t * rope + 2 * j);
                float s = cosSin.get(t * rope + 2 * j + 1);
                float a = out.get(at);
                float b = out.get(at + 1);
                out.set(at, a * c - b * s);
                out.set(at + 1, a * s + b * c);
            }
        });
    }
}
