package org.kvflow.deepseek;

import org.kvflow.model.safetensors.SafeTensors;
import org.kvflow.model.safetensors.SafeTensorsException;
import org.kvflow.model.safetensors.TensorInfo;

/**
 * One layer's attention-path weights as fp32, read from a checkpoint under the names of the
 * published Hugging Face checkpoints ({@code model.layers.L.self_attn.q_a_proj.weight}, …). A
 * weight stored as {@code F8_E4M3} is dequantised with its {@code weight_scale_inv} companion, one
 * fp32 scale per 128 × 128 block, as DeepSeek's checkpoints store them.
 *
 * @param embed        {@code model.embed_tokens.weight}, vocab × hidden
 * @param vocab        rows of {@code embed}
 * @param inputNorm    {@code input_layernorm.weight}
 * @param qA           {@code q_a_proj}, qLora × hidden
 * @param qNorm        {@code q_a_layernorm}
 * @param qB           {@code q_b_proj}, heads·(nope+rope) × qLora
 * @param kvA          {@code kv_a_proj_with_mqa}, (kvLora+rope) × hidden
 * @param kvNorm       {@code kv_a_layernorm}
 * @param kvB          {@code kv_b_proj}, heads·(nope+v) × kvLora
 * @param o            {@code o_proj}, hidden × heads·v
 * @param indexQB      {@code indexer.wq_b}, indexHeads·indexDim × qLora
 * @param indexK       {@code indexer.wk}, indexDim × hidden
 * @param indexKNorm   {@code indexer.k_norm.weight}
 * @param indexKBias   {@code indexer.k_norm.bias}
 * @param indexWeights {@code indexer.weights_proj}, indexHeads × hidden
 */
record V32Weights(float[] embed, int vocab, float[] inputNorm, float[] qA, float[] qNorm, float[] qB, float[] kvA, float[] kvNorm,
                  float[] kvB, float[] o, float[] indexQB, float[] indexK, float[] indexKNorm, float[] indexKBias, float[] indexWeights) {

    /**
     * Layer {@code layer}'s weights of a model of config {@code c}.
     *
     * @throws SafeTensorsException naming the tensor that is missing, of another shape or dtype
     */
    static V32Weights read(SafeTensors file, V32Config c, int layer) {
        TensorInfo embedding = file.tensors().get("model.embed_tokens.weight");
        if (embedding == null) {
            throw new SafeTensorsException(file.file() + ": tensor model.embed_tokens.weight is missing");
        }
        long vocab = embedding.shape().length == 2 ? embedding.shape()[0] : -1;
        String p = "model.layers." + layer + ".";
        String a = p + "self_attn.";
        int h = c.hidden();
        return new V32Weights(file.floats("model.embed_tokens.weight", vocab, h), (int) vocab,
                file.floats(p + "input_layernorm.weight", h),
                matrix(file, a + "q_a_proj.weight", c.qLora(), h),
                file.floats(a + "q_a_layernorm.weight", c.qLora()),
                matrix(file, a + "q_b_proj.weight", (long) c.heads() * c.qkHead(), c.qLora()),
                matrix(file, a + "kv_a_proj_with_mqa.weight", c.kvLora() + c.rope(), h),
                file.floats(a + "kv_a_layernorm.weight", c.kvLora()),
                matrix(file, a + "kv_b_proj.weight", (long) c.heads() * (c.nope() + c.v()), c.kvLora()),
                matrix(file, a + "o_proj.weight", h, (long) c.heads() * c.v()),
                matrix(file, a + "indexer.wq_b.weight", (long) c.indexHeads() * c.indexDim(), c.qLora()),
                matrix(file, a + "indexer.wk.weight", c.indexDim(), h),
                file.floats(a + "indexer.k_norm.weight", c.indexDim()),
                file.floats(a + "indexer.k_norm.bias", c.indexDim()),
                matrix(file, a + "indexer.weights_proj.weight", c.indexHeads(), h));
    }

    /** A weight matrix, dequantised by 128 × 128 blocks when it is stored as fp8. */
    private static float[] matrix(SafeTensors file, String name, long rows, long cols) {
        float[] w = file.floats(name, rows, cols);
        TensorInfo info = file.tensors().get(name);
        if (info != null && info.dtype().equals("F8_E4M3")) {
            long blockRows = (rows + 127) / 128;
            long blockCols = (cols + 127) / 128;
            float[] scales = file.floats(name + "_scale_inv", blockRows, blockCols);
            for (int r = 0; r < rows; r++) {
                for (int col = 0; col < cols; col++) {
                    w[(int) (r * cols + col)] *= scales[(int) ((r / 128) * blockCols + col / 128)];
                }
            }
        }
        return w;
    }

    /** The embedding rows of {@code ids} into {@code x} (row-major, {@code hidden} wide). */
    void embed(int[] ids, long[] positions, float[] x) {
        int h = inputNorm.length;
        for (int t = 0; t < ids.length; t++) {
            if (ids[t] < 0 || ids[t] >= vocab) {
                throw new IllegalArgumentException("token id " + ids[t] + " at position " + positions[t] + " is outside the vocabulary of " + vocab);
            }
            System.arraycopy(embed, ids[t] * h, x, t * h, h);
        }
    }
}
