package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twins of the attention kernels: one work-group of 256 per query, the shape read from its array
 * at every launch. The group's work-items compute the logits, eight to a key row (each summing
 * every eighth product, the eight partial sums then added in a tree), the max and the sum of
 * {@code exp(logit − max)} are reduced in a tree in local memory (sums in another order than the
 * reference's, so they agree up to rounding), and all work-items produce the latent outputs
 * (strided over {@code C}). Barriers order the phases. Where key {@code j} of query {@code i}
 * lies is the subclass's ({@link #rowOf}).
 */
abstract class AttendAparapi extends AparapiTask {
    /** Work-items that share one key row's logit: each reads every eighth float, so one load of a warp covers four rows' runs of floats. */
    static final int ROW_LANES = 8;

    float[] queries = new float[1];
    float[] keys = new float[1];
    float[] weights = new float[1];
    float[] out = new float[1];
    int[] shape = new int[4];
    /** The most negative float, as a field: passed as a kernel argument, not written as a literal. */
    float lowest = -Float.MAX_VALUE;
    /** The work-items' partial maxima, then partial sums, reduced in a tree. */
    @Local final float[] part = new float[LOCAL];

    /** Binds queries and keys (the first two arguments), then shape, weights and out from argument {@code shapeAt} on. */
    final void bindAttention(List<Object> args, int shapeAt) {
        queries = ((FloatArray) args.get(0)).toHeapArray();
        keys = ((FloatArray) args.get(1)).toHeapArray();
        shape = ((IntArray) args.get(shapeAt)).toHeapArray();
        weights = ((FloatArray) args.get(shapeAt + 1)).toHeapArray();
        out = ((FloatArray) args.get(shapeAt + 2)).toHeapArray();
    }

    /** The softmax scratch and the output: the last two arguments. */
    @Override
    final List<Object> outputs(List<Object> args) {
        return args.subList(args.size() - 2, args.size());
    }

    /** The first float of key {@code j} of query {@code i} in {@link #keys} ({@code count} keys a query, rows of {@code width}). */
    abstract int rowOf(int i, int j, int count, int width);

    @Override
    int globalSize() {
        return shape[2] * LOCAL;
    }

    @Override
    public void run() {
        int i = getGroupId();
        int lid = getLocalId();
        int width = shape[0];
        int latent = shape[1];
        int count = shape[3];
        float scale = sqrt((float) width);
        float mx = lowest;
        int lane = lid & (ROW_LANES - 1);
        int slot = lid / ROW_LANES;
        for (int jj = 0; jj < count; jj += LOCAL / ROW_LANES) {
            int j = jj + slot;
            float acc = 0.0f;
            if (j < count) {
                int row = rowOf(i, j, count, width);
                for (int d = lane; d < width; d += ROW_LANES) {
                    acc = acc + queries[i * width + d] * keys[row + d];
                }
            }
            part[lid] = acc;
            localBarrier();
            for (int s = ROW_LANES / 2; s > 0; s = s / 2) {
                if (lane < s) {
                    part[lid] = part[lid] + part[lid + s];
                }
                localBarrier();
            }
            if (lane == 0) {
                if (j < count) {
                    float logit = part[lid] / scale;
                    weights[i * count + j] = logit;
                    mx = max(mx, logit);
                }
            }
            localBarrier(); // part is written again by the next round
        }
        part[lid] = mx;
        localBarrier();
        for (int s = LOCAL / 2; s > 0; s = s / 2) {
            if (lid < s) {
                part[lid] = max(part[lid], part[lid + s]);
            }
            localBarrier();
        }
        mx = part[0];
        localBarrier();
        float sum = 0.0f;
        if (lane == 0) { // each row's lane 0 rereads only the logits it wrote
            for (int j = slot; j < count; j += LOCAL / ROW_LANES) {
                float e = exp(weights[i * count + j] - mx);
                weights[i * count + j] = e;
                sum = sum + e;
            }
        }
        part[lid] = sum;
        localGlobalBarrier(); // the weights are read across the group below
        for (int s = LOCAL / 2; s > 0; s = s / 2) {
            if (lid < s) {
                part[lid] = part[lid] + part[lid + s];
            }
            localBarrier();
        }
        float total = part[0];
        for (int c = lid; c < latent; c += LOCAL) {
            float acc = 0.0f;
            for (int j = 0; j < count; j++) {
                acc = acc + weights[i * count + j] * keys[rowOf(i, j, count, width) + c];
            }
            out[i * latent + c] = acc / total;
        }
    }
}
