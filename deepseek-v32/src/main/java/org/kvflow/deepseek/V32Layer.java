package org.kvflow.deepseek;

import java.util.Arrays;
import java.util.Comparator;
import java.util.stream.IntStream;
import org.kvflow.kernels.nsa.KeyFloats;
import org.kvflow.kernels.quant.Fp8E4m3;
import org.kvflow.kernels.quant.TileQuant;

/**
 * One DeepSeek V3.2 attention layer in fp32, following DeepSeek's inference code for V3.2
 * ({@code inference/model.py}: {@code MLA}, {@code Indexer}) with MLA absorbed for attention over
 * the 576-wide latent rows. The key side gives what the pipeline stores: the normalised latent, the
 * rotated rope part, and the indexer key after LayerNorm, rope and the Hadamard rotation (the store
 * quantises it to fp8 with one scale, as the indexer's cache does). The query side scores every
 * visible key with the lightning indexer (fp8 codes, ReLU, per-head weights), keeps the top-k and
 * attends over those rows with all heads; the output is {@code o_proj} of the heads' values.
 * Immutable and thread-safe.
 */
final class V32Layer {
    private final V32Config c;
    private final V32Weights w;
    private final Rope rope;

    V32Layer(V32Config c, V32Weights w) {
        this.c = c;
        this.w = w;
        this.rope = new Rope(c);
    }

    /** The key floats of tokens {@code (ids[i], positions[i])}. */
    KeyFloats keys(int[] ids, long[] positions) {
        if (ids.length != positions.length) {
            throw new IllegalArgumentException(ids.length + " token ids but " + positions.length + " positions");
        }
        int n = ids.length;
        int cl = c.kvLora();
        int r = c.rope();
        int di = c.indexDim();
        float[] latent = new float[n * cl];
        float[] ropePart = new float[n * r];
        float[] index = new float[n * di];
        IntStream.range(0, n).parallel().forEach(t -> {
            float[] x = w.input(ids[t], positions[t]);
            float[] kv = Vectors.linear(w.kvA(), cl + r, x);
            Vectors.rmsNorm(kv, 0, cl, w.kvNorm());
            rope.apply(kv, cl, positions[t]);
            System.arraycopy(kv, 0, latent, t * cl, cl);
            System.arraycopy(kv, cl, ropePart, t * r, r);
            float[] k = Vectors.linear(w.indexK(), di, x);
            Vectors.layerNorm(k, w.indexKNorm(), w.indexKBias());
            rope.apply(k, 0, positions[t]);
            Vectors.hadamard(k, 0, di);
            System.arraycopy(k, 0, index, t * di, di);
        });
        return new KeyFloats(n, latent, ropePart, index);
    }

    /** What the query of token {@code (id, position)} brings to attention and to the indexer. */
    record Query(float[] absorbed, float[] codes, float[] weights) {}

    /**
     * The query side: per head the absorbed query {@code [q_nope·W_UK | rope(q_pe)]} ({@code C+R}
     * floats each), the indexer query's fp8 values ({@code indexHeads × I}, decoded) and each index
     * head's weight with the query's fp8 scale and the softmax scale folded in.
     */
    Query query(int id, long position) {
        float[] x = w.input(id, position);
        float[] qr = Vectors.linear(w.qA(), c.qLora(), x);
        Vectors.rmsNorm(qr, 0, c.qLora(), w.qNorm());
        float[] q = Vectors.linear(w.qB(), c.heads() * c.qkHead(), qr);
        int cl = c.kvLora();
        int width = cl + c.rope();
        float[] absorbed = new float[c.heads() * width];
        for (int h = 0; h < c.heads(); h++) {
            int qOff = h * c.qkHead();
            for (int d = 0; d < c.nope(); d++) {
                float qd = q[qOff + d];
                int row = (h * (c.nope() + c.v()) + d) * cl;
                for (int j = 0; j < cl; j++) {
                    absorbed[h * width + j] += qd * w.kvB()[row + j];
                }
            }
            rope.apply(q, qOff + c.nope(), position);
            System.arraycopy(q, qOff + c.nope(), absorbed, h * width + cl, c.rope());
        }
        int di = c.indexDim();
        float[] qi = Vectors.linear(w.indexQB(), c.indexHeads() * di, qr);
        float[] weights = Vectors.linear(w.indexWeights(), c.indexHeads(), x);
        float headScale = (float) Math.pow(c.indexHeads(), -0.5);
        float softmaxScale = (float) Math.pow(di, -0.5);
        for (int h = 0; h < c.indexHeads(); h++) {
            rope.apply(qi, h * di, position);
            Vectors.hadamard(qi, h * di, di);
            float scale = TileQuant.scale(qi, h * di, di);
            for (int d = 0; d < di; d++) {
                qi[h * di + d] = Fp8E4m3.decode(TileQuant.quantize(qi[h * di + d], scale));
            }
            weights[h] = weights[h] * headScale * scale * softmaxScale;
        }
        return new Query(absorbed, qi, weights);
    }

    /**
     * The lightning indexer's scores of keys {@code 0..count-1}: {@code kScale_j · Σ_h w_h · relu(q_h · k_j)}
     * over the keys' fp8 codes ({@code I} per key) and scales (one per key).
     */
    float[] indexScores(Query q, byte[] keyCodes, float[] keyScales, int count) {
        int di = c.indexDim();
        float[] key = new float[di];
        float[] scores = new float[count];
        for (int j = 0; j < count; j++) {
            for (int d = 0; d < di; d++) {
                key[d] = Fp8E4m3.decode(keyCodes[j * di + d]);
            }
            float sum = 0;
            for (int h = 0; h < c.indexHeads(); h++) {
                float dot = 0;
                for (int d = 0; d < di; d++) {
                    dot += q.codes()[h * di + d] * key[d];
                }
                sum += Math.max(dot, 0f) * q.weights()[h];
            }
            scores[j] = sum * keyScales[j];
        }
        return scores;
    }

    /** The top {@code min(topk, count)} of {@code scores[0..count)}, ties to the lower position, in ascending position order. */
    int[] topK(float[] scores, int count) {
        int k = Math.min(c.topk(), count);
        int[] chosen = IntStream.range(0, count).boxed()
                .sorted(Comparator.<Integer>comparingDouble(j -> -scores[j]).thenComparingInt(j -> j))
                .limit(k).mapToInt(Integer::intValue).toArray();
        Arrays.sort(chosen);
        return chosen;
    }

    /**
     * Sparse MLA over the selected key rows ({@code C+R} floats each, as the view decodes them):
     * per head, softmax of the scaled logits, the latent mix, then {@code W_UV} and {@code o_proj}.
     *
     * @return the layer's attention output, {@code hidden} floats
     */
    float[] attend(Query q, float[] keyRows, int[] selected) {
        int cl = c.kvLora();
        int width = cl + c.rope();
        float scale = c.softmaxScale();
        float[] values = new float[c.heads() * c.v()];
        float[] logits = new float[selected.length];
        float[] mix = new float[cl];
        for (int h = 0; h < c.heads(); h++) {
            float max = Float.NEGATIVE_INFINITY;
            for (int s = 0; s < selected.length; s++) {
                float dot = 0;
                int row = selected[s] * width;
                for (int j = 0; j < width; j++) {
                    dot += q.absorbed()[h * width + j] * keyRows[row + j];
                }
                logits[s] = dot * scale;
                max = Math.max(max, logits[s]);
            }
            float sum = 0;
            for (int s = 0; s < selected.length; s++) {
                logits[s] = (float) Math.exp(logits[s] - max);
                sum += logits[s];
            }
            Arrays.fill(mix, 0f);
            for (int s = 0; s < selected.length; s++) {
                float p = logits[s] / sum;
                int row = selected[s] * width;
                for (int j = 0; j < cl; j++) {
                    mix[j] += p * keyRows[row + j];
                }
            }
            for (int d = 0; d < c.v(); d++) {
                int row = (h * (c.nope() + c.v()) + c.nope() + d) * cl;
                float acc = 0;
                for (int j = 0; j < cl; j++) {
                    acc += mix[j] * w.kvB()[row + j];
                }
                values[h * c.v() + d] = acc;
            }
        }
        return Vectors.linear(w.o(), c.hidden(), values);
    }
}
