package org.kvflow.deepseek;

/**
 * DeepSeek V3.2's rotary frequencies, YaRN-corrected as {@code precompute_freqs_cis} makes them; the
 * rotation of consecutive pairs by {@code position · freq_j} ({@code apply_rotary_emb}) is
 * {@code RowKernels.ropeRows}.
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

    /** {@return the frequencies {@code freq_j}, {@code j < R/2}} */
    float[] freqs() {
        return freqs.clone();
    }
}
