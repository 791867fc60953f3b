package org.kvflow.kernels.nsa;

import java.util.Objects;
import java.util.SplittableRandom;

/**
 * The synthetic NSA/MLA layer of contract §3.8: seeded weights, a per-token input that depends only on
 * {@code (tokenId, pos)}, and the projections, rope, query and index query of that token. Two
 * implementations that follow contract §3.8 produce identical floats: arithmetic is fp32, ascending,
 * one multiply then one add per step, and transcendental functions use {@link StrictMath}.
 * Immutable and thread-safe.
 */
public final class SyntheticNsaLayer {
    private final long seed;
    private final NsaDims dims;
    private final float[] wKv;
    private final float[] wRope;
    private final float[] wIdx;
    private final float[] wQ;
    private final float[] wQi;
    private final double[] ropeFrequencies;

    /** The layer with seed {@code seed} (layer {@code l} of a model with seed {@code s} has seed {@code s + l}). */
    public SyntheticNsaLayer(long seed, NsaDims dims) {
        this.seed = seed;
        this.dims = Objects.requireNonNull(dims, "dims");
        SplittableRandom w = new SplittableRandom(seed);
        int h = dims.hidden();
        wKv = weights(w, h, dims.latent());
        wRope = weights(w, h, dims.rope());
        wIdx = weights(w, h, dims.index());
        wQ = weights(w, h, dims.latent() + dims.rope());
        wQi = weights(w, h, dims.index());
        ropeFrequencies = new double[dims.rope() / 2];
        for (int j = 0; j < ropeFrequencies.length; j++) {
            ropeFrequencies[j] = StrictMath.pow(10000.0, -2.0 * j / dims.rope());
        }
    }

    /** Layer {@code layer} of the model with seed {@code modelSeed}. */
    public static SyntheticNsaLayer ofModel(long modelSeed, NsaDims dims, int layer) {
        return new SyntheticNsaLayer(modelSeed + layer, dims);
    }

    public NsaDims dims() {
        return dims;
    }

    /** The seed of token {@code (tokenId, pos)}'s input generator (contract §3.8 step 2). */
    public long inputSeed(int tokenId, long pos) {
        return seed ^ (tokenId * 0x9E3779B97F4A7C15L) ^ (pos * 0xC2B2AE3D27D4EB4FL);
    }

    /** The input vector {@code x} of token {@code (tokenId, pos)} (contract §3.8 step 2). */
    public float[] input(int tokenId, long pos) {
        SplittableRandom g = new SplittableRandom(inputSeed(tokenId, pos));
        float[] x = new float[dims.hidden()];
        for (int h = 0; h < x.length; h++) {
            x[h] = (float) (2.0 * g.nextDouble() - 1.0);
        }
        return x;
    }

    /** The key side of a token: latent, roped key rope part and index key, before quantisation. */
    public TokenKv key(int tokenId, long pos) {
        float[] x = input(tokenId, pos);
        float[] rope = project(x, wRope, dims.rope());
        applyRope(rope, 0, pos);
        return new TokenKv(project(x, wKv, dims.latent()), rope, project(x, wIdx, dims.index()));
    }

    /** The query side of a token: {@code q} ({@code C+R}, rope applied to the last {@code R}) and {@code qIdx}. */
    public TokenQuery query(int tokenId, long pos) {
        float[] x = input(tokenId, pos);
        float[] q = project(x, wQ, dims.latent() + dims.rope());
        applyRope(q, dims.latent(), pos);
        return new TokenQuery(q, project(x, wQi, dims.index()));
    }

    /**
     * The key-side weights packed for a kernel: for each hidden row {@code h}, the latent, rope
     * and index columns in that order ({@code hidden × (C+R+I)} floats).
     */
    public float[] keyWeights() {
        int h = dims.hidden();
        int width = dims.latent() + dims.rope() + dims.index();
        float[] packed = new float[h * width];
        for (int r = 0; r < h; r++) {
            System.arraycopy(wKv, r * dims.latent(), packed, r * width, dims.latent());
            System.arraycopy(wRope, r * dims.rope(), packed, r * width + dims.latent(), dims.rope());
            System.arraycopy(wIdx, r * dims.index(), packed, r * width + dims.latent() + dims.rope(), dims.index());
        }
        return packed;
    }

    /** {@code (cos θ_j, sin θ_j)} of position {@code pos}, as fp32 and as {@link #key} uses them, for {@code j < R/2}. */
    public float[] ropeCosSin(long pos) {
        float[] cs = new float[2 * ropeFrequencies.length];
        for (int j = 0; j < ropeFrequencies.length; j++) {
            double theta = pos * ropeFrequencies[j];
            cs[2 * j] = (float) StrictMath.cos(theta);
            cs[2 * j + 1] = (float) StrictMath.sin(theta);
        }
        return cs;
    }

    private float[] project(float[] x, float[] w, int width) {
        float[] y = new float[width];
        for (int j = 0; j < width; j++) {
            float acc = 0.0f;
            for (int h = 0; h < x.length; h++) {
                float product = x[h] * w[h * width + j];
                acc = acc + product;
            }
            y[j] = acc;
        }
        return y;
    }

    private void applyRope(float[] v, int offset, long pos) {
        for (int j = 0; j < ropeFrequencies.length; j++) {
            double theta = pos * ropeFrequencies[j];
            float c = (float) StrictMath.cos(theta);
            float s = (float) StrictMath.sin(theta);
            float a = v[offset + 2 * j];
            float b = v[offset + 2 * j + 1];
            v[offset + 2 * j] = a * c - b * s;
            v[offset + 2 * j + 1] = a * s + b * c;
        }
    }

    private static float[] weights(SplittableRandom w, int hidden, int width) {
        float[] m = new float[hidden * width];
        double norm = Math.sqrt(hidden);
        for (int i = 0; i < m.length; i++) {
            m[i] = (float) ((2.0 * w.nextDouble() - 1.0) / norm);
        }
        return m;
    }

    /** Key-side floats of one token. */
    public record TokenKv(float[] latent, float[] rope, float[] indexKey) {}

    /** Query-side floats of one token. */
    public record TokenQuery(float[] q, float[] indexQuery) {}
}
