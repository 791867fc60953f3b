package org.kvflow.deepseek;

/**
 * DeepSeek V3.2's rotary embedding: YaRN-corrected frequencies ({@code precompute_freqs_cis}) applied
 * to consecutive pairs {@code (x[2j], x[2j+1])} as complex numbers ({@code apply_rotary_emb}). The
 * angle is {@code position · freq_j} in fp32, as the reference computes it.
 */
final class Rope {
    private final float[] freqs;

    Rope(V32Config c) {
        int dim = c.rope();
        freqs = new float[dim / 2];
        for (int j = 0; j < freqs.length; j++) {
            freqs[j] = (float) (1.0 / Math.pow(c.ropeTheta(), (float) (2 * j) / dim));
        }
        if (c.maxSeqLen() > c.originalSeqLen()) {
            double low = Math.max(Math.floor(correctionDim(c.betaFast(), dim, c.ropeTheta(), c.originalSeqLen())), 0);
            double high = Math.min(Math.ceil(correctionDim(c.betaSlow(), dim, c.ropeTheta(), c.originalSeqLen())), dim - 1);
            if (low == high) {
                high += 0.001;
            }
            for (int j = 0; j < freqs.length; j++) {
                float ramp = (float) Math.min(1, Math.max(0, (j - low) / (high - low)));
                float smooth = 1 - ramp;
                freqs[j] = (float) (freqs[j] / c.ropeFactor()) * (1 - smooth) + freqs[j] * smooth;
            }
        }
    }

    private static double correctionDim(double rotations, int dim, double base, int seqLen) {
        return dim * Math.log(seqLen / (rotations * 2 * Math.PI)) / (2 * Math.log(base));
    }

    /** Rotates {@code x[off .. off + R)} for {@code position}, in place. */
    void apply(float[] x, int off, long position) {
        for (int j = 0; j < freqs.length; j++) {
            float angle = (float) position * freqs[j];
            float cos = (float) Math.cos(angle);
            float sin = (float) Math.sin(angle);
            float a = x[off + 2 * j];
            float b = x[off + 2 * j + 1];
            x[off + 2 * j] = a * cos - b * sin;
            x[off + 2 * j + 1] = a * sin + b * cos;
        }
    }
}
