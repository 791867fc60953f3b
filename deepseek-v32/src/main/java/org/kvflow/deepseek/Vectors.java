package org.kvflow.deepseek;

/** The layer's small fp32 operations: projections, norms, the Hadamard rotation and block fp8 quantisation. */
final class Vectors {
    private Vectors() {}

    /** {@code y = W·x} for {@code W} of {@code rows × x.length}, row-major (a linear layer's weight). */
    static float[] linear(float[] w, int rows, float[] x) {
        int n = x.length;
        float[] y = new float[rows];
        for (int r = 0; r < rows; r++) {
            float acc = 0;
            int base = r * n;
            for (int i = 0; i < n; i++) {
                acc += w[base + i] * x[i];
            }
            y[r] = acc;
        }
        return y;
    }

    /** RMSNorm of {@code x[off .. off+len)} with weight {@code g}, eps 1e-6, in place. */
    static void rmsNorm(float[] x, int off, int len, float[] g) {
        double sum = 0;
        for (int i = 0; i < len; i++) {
            sum += (double) x[off + i] * x[off + i];
        }
        float inv = (float) (1.0 / Math.sqrt(sum / len + 1e-6));
        for (int i = 0; i < len; i++) {
            x[off + i] = g[i] * (x[off + i] * inv);
        }
    }

    /** LayerNorm of {@code x} with weight {@code g} and bias {@code b}, eps 1e-6, in place. */
    static void layerNorm(float[] x, float[] g, float[] b) {
        double mean = 0;
        for (float value : x) {
            mean += value;
        }
        mean /= x.length;
        double var = 0;
        for (float value : x) {
            var += (value - mean) * (value - mean);
        }
        float inv = (float) (1.0 / Math.sqrt(var / x.length + 1e-6));
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) (x[i] - mean) * inv * g[i] + b[i];
        }
    }

    /** The Walsh–Hadamard rotation of {@code x[off .. off+n)} (natural order), scaled by {@code n^-0.5}, in place. */
    static void hadamard(float[] x, int off, int n) {
        for (int h = 1; h < n; h *= 2) {
            for (int i = 0; i < n; i += 2 * h) {
                for (int j = i; j < i + h; j++) {
                    float a = x[off + j];
                    float b = x[off + j + h];
                    x[off + j] = a + b;
                    x[off + j + h] = a - b;
                }
            }
        }
        float scale = (float) (1.0 / Math.sqrt(n));
        for (int i = 0; i < n; i++) {
            x[off + i] *= scale;
        }
    }
}
