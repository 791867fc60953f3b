package org.kvflow.kernels.nsa;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.stream.IntStream;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.quant.Fp8E4m3;
import org.kvflow.kernels.quant.TileQuant;

/**
 * NSA indexer reference (contract §3.8 step 6, §7.1): scores of one index query against dequantised
 * index keys, then the top {@code k} positions by score descending, ties to the smaller logical
 * position.
 */
public final class IndexerKernels {
    /**
     * How far a device's score may lie from this reference, relative to {@code Σ_d |q[d]·k[d]|}
     * of that score (contract §7.1): devices sum in another order (tiles, tensor cores, fused
     * multiply-adds), which changes a sum by rounding only.
     */
    public static final float SCORE_TOLERANCE = 0x1p-16f;

    private IndexerKernels() {}

    /**
     * Whether {@code actual} is a top-k of {@code scores} as {@code expected} is, up to
     * {@code bound}: both list the same positions except for swaps among positions whose scores
     * lie within {@code bound} of the k-th best (a device's scores may order such near-ties
     * differently), and both have the same length. {@code expected} is {@link #topK}'s answer.
     */
    public static boolean sameTopKWithin(int[] expected, int[] actual, float[] scores, float bound) {
        if (expected.length != actual.length) {
            return false;
        }
        float kth = Float.POSITIVE_INFINITY;
        for (int p : expected) {
            kth = Math.min(kth, scores[p]);
        }
        Set<Integer> want = new HashSet<>();
        for (int p : expected) {
            want.add(p);
        }
        Set<Integer> got = new HashSet<>();
        for (int p : actual) {
            if (p < 0 || p >= scores.length || !got.add(p)) {
                return false;
            }
        }
        for (int p : actual) {
            if (!want.contains(p) && Math.abs(scores[p] - kth) > bound) {
                return false;
            }
        }
        for (int p : expected) {
            if (!got.contains(p) && Math.abs(scores[p] - kth) > bound) {
                return false;
            }
        }
        return true;
    }

    /** {@code Σ_d q[d]·k[d]} in fp32, ascending {@code d}, starting from {@code 0.0f}. */
    public static float dot(float[] q, float[] k, int kOff, int dim) {
        float acc = 0.0f;
        for (int d = 0; d < dim; d++) {
            float product = q[d] * k[kOff + d];
            acc = acc + product;
        }
        return acc;
    }

    /**
     * Scores of index queries against fp8 index keys, the batched kernel form of {@link #dot}:
     * with {@code shape = {dim, nq, nk}}, {@code scores[q·nk + j] = Σ_d queries[q·dim + d] ·
     * (fp8(keys[j·dim + d]) · keyScales[j·blocks + d/128])}, ascending {@code d}, where
     * {@code blocks = ⌈dim/128⌉} (contract §3.3 scales). The shape is data, so one compiled kernel
     * serves every size up to the arrays' capacity; entries past the shape are left alone.
     * Devices that fuse multiply-add may differ from this reference by rounding only.
     */
    public static void scoreFp8(FloatArray queries, ByteArray keys, FloatArray keyScales, IntArray shape, FloatArray scores) {
        int dim = shape.get(0);
        int nk = shape.get(2);
        int blocks = KvLayout.tiles(dim);
        IntStream.range(0, shape.get(1) * nk).parallel().forEach(i -> {
            int q = i / nk;
            int j = i - q * nk;
            float acc = 0.0f;
            for (int d = 0; d < dim; d++) {
                float k = TileQuant.dequantize(keys.get(j * dim + d), keyScales.get(j * blocks + d / KvLayout.QUANT_TILE));
                acc = acc + queries.get(q * dim + d) * k;
            }
            scores.set(i, acc);
        });
    }

    /**
     * The lightning indexer's scores, many heads to a query: with {@code shape = {heads, dim, nq, nk}}
     * ({@code dim ≤ 128}: one scale per key), {@code scores[q·nk + j] = keyScales[j] · Σ_h
     * weights[q·heads + h] · relu(Σ_d queries[(q·heads + h)·dim + d] · fp8(keys[j·dim + d]))}, sums
     * ascending. The queries are fp8 values already decoded, the weights carry each head's query
     * scale; the keys' codes enter undecoded by their scale, which multiplies the sum once.
     */
    public static void scoreHeads(FloatArray queries, FloatArray weights, ByteArray keys, FloatArray keyScales, IntArray shape,
                                  FloatArray scores) {
        int heads = shape.get(0);
        int dim = shape.get(1);
        int nk = shape.get(3);
        IntStream.range(0, shape.get(2) * nk).parallel().forEach(i -> {
            int q = i / nk;
            int j = i - q * nk;
            float sum = 0.0f;
            for (int h = 0; h < heads; h++) {
                float dot = 0.0f;
                for (int d = 0; d < dim; d++) {
                    dot = dot + queries.get((q * heads + h) * dim + d) * Fp8E4m3.decode(keys.get(j * dim + d));
                }
                sum = sum + Math.max(dot, 0.0f) * weights.get(q * heads + h);
            }
            scores.set(i, sum * keyScales.get(j));
        });
    }

    /**
     * Top-k of many rows at once, the batched kernel form of {@link #topK}: with
     * {@code shape = {nq, nk, k}}, row {@code q}'s scores are {@code scores[q·nk ..  q·nk + counts[q])}
     * ({@code counts[q] ≤ nk}: a causal query sees a prefix of the keys), and
     * {@code selected[q·k .. (q+1)·k)} receives {@code topK(row, counts[q], k)} in ascending position
     * order, then {@code -1} up to {@code k}. The shape is data, like {@link #scoreFp8}'s; {@code k = 0}
     * selects nothing.
     */
    public static void topKRows(FloatArray scores, IntArray counts, IntArray shape, IntArray selected) {
        int nk = shape.get(1);
        int k = shape.get(2);
        if (k == 0) {
            return;
        }
        IntStream.range(0, shape.get(0)).parallel().forEach(q -> {
            int count = counts.get(q);
            float[] row = Arrays.copyOfRange(scores.toHeapArray(), q * nk, q * nk + count);
            int[] chosen = topK(row, count, k);
            for (int i = 0; i < k; i++) {
                selected.set(q * k + i, i < chosen.length ? chosen[i] : -1);
            }
        });
    }

    /**
     * The {@code min(k, count)} positions with the highest scores, returned in <em>ascending
     * position order</em> (the order attention consumes them). {@code scores[j]} is the score of
     * logical position {@code j}.
     */
    public static int[] topK(float[] scores, int count, int k) {
        int keep = Math.min(k, count);
        if (keep == count) {
            int[] all = new int[count];
            for (int j = 0; j < count; j++) {
                all[j] = j;
            }
            return all;
        }
        // A position ranks above another when its score is higher, or equal with a smaller position.
        // Total order on (score desc, position asc) via a sortable 64-bit key per position.
        long[] keys = new long[count];
        for (int j = 0; j < count; j++) {
            keys[j] = ((long) descendingKey(scores[j]) << 32) | j;
        }
        Arrays.sort(keys);
        int[] chosen = new int[keep];
        for (int i = 0; i < keep; i++) {
            chosen[i] = (int) keys[i];
        }
        Arrays.sort(chosen);
        return chosen;
    }

    /** An int whose ascending signed order is the descending order of the score (−0.0 ties with 0.0). */
    private static int descendingKey(float score) {
        int bits = Float.floatToIntBits(score == 0f ? 0f : score);
        int ascending = bits >= 0 ? bits : bits ^ 0x7FFFFFFF;
        return ~ascending;
    }
}
