package org.kvflow.deepseek;

/**
 * The shapes and constants of DeepSeek V3.2's attention path, named as in DeepSeek's inference code
 * ({@code ModelArgs}): {@link #REAL} is the published model; any smaller widths run the same code.
 *
 * @param hidden         {@code dim}, the hidden width (7,168)
 * @param qLora          {@code q_lora_rank} (1,536)
 * @param kvLora         {@code kv_lora_rank}, the latent width {@code C} (512)
 * @param rope           {@code qk_rope_head_dim} {@code R} (64)
 * @param heads          {@code n_heads} (128)
 * @param nope           {@code qk_nope_head_dim} (128)
 * @param v              {@code v_head_dim} (128)
 * @param indexHeads     {@code index_n_heads} (64)
 * @param indexDim       {@code index_head_dim} {@code I} (128), a power of two (the Hadamard rotation) of at most 128
 * @param topk           {@code index_topk} (2,048)
 * @param ropeTheta      {@code rope_theta} (10,000)
 * @param ropeFactor     YaRN {@code rope_factor} (40)
 * @param originalSeqLen YaRN {@code original_seq_len} (4,096)
 * @param maxSeqLen      {@code max_seq_len} (163,840); YaRN applies when it exceeds {@code originalSeqLen}
 * @param betaFast       YaRN {@code beta_fast} (32)
 * @param betaSlow       YaRN {@code beta_slow} (1)
 * @param mscale         YaRN {@code mscale} (1)
 */
public record V32Config(int hidden, int qLora, int kvLora, int rope, int heads, int nope, int v, int indexHeads, int indexDim,
                        int topk, double ropeTheta, double ropeFactor, int originalSeqLen, int maxSeqLen, int betaFast, int betaSlow,
                        double mscale) {
    /** DeepSeek V3.2's published widths. */
    public static final V32Config REAL = new V32Config(7168, 1536, 512, 64, 128, 128, 128, 64, 128, 2048, 10000, 40, 4096, 163840, 32,
            1, 1);

    /** Small widths of the same architecture, for tests: the committed weights file has them. */
    public static final V32Config TINY = new V32Config(64, 48, 32, 16, 4, 16, 16, 4, 32, 8, 10000, 40, 4096, 163840, 32, 1, 1);

    /**
     * Checks the widths.
     *
     * @throws IllegalArgumentException naming the first width that the layer cannot have
     */
    public V32Config {
        positive("hidden", hidden);
        positive("qLora", qLora);
        positive("kvLora", kvLora);
        positive("heads", heads);
        positive("nope", nope);
        positive("v", v);
        positive("indexHeads", indexHeads);
        positive("topk", topk);
        if (rope < 2 || rope % 2 != 0) {
            throw new IllegalArgumentException("rope must be even and >= 2, was " + rope);
        }
        if (indexDim < rope || indexDim > 128 || Integer.bitCount(indexDim) != 1) {
            throw new IllegalArgumentException("indexDim must be a power of two from rope (" + rope + ") to 128 (one fp8 scale per index key), was "
                    + indexDim);
        }
    }

    /** {@return the query/key head width {@code nope + rope}} */
    public int qkHead() {
        return nope + rope;
    }

    /**
     * The attention softmax scale: {@code qkHead^-0.5}, times {@code m²} with YaRN's
     * {@code m = 0.1·mscale·ln(ropeFactor) + 1} when the context is extended.
     *
     * @return the scale
     */
    public float softmaxScale() {
        double scale = Math.pow(qkHead(), -0.5);
        if (maxSeqLen > originalSeqLen) {
            double m = 0.1 * mscale * Math.log(ropeFactor) + 1.0;
            scale = scale * m * m;
        }
        return (float) scale;
    }

    private static void positive(String field, int value) {
        if (value < 1) {
            throw new IllegalArgumentException(field + " must be >= 1, was " + value);
        }
    }
}
