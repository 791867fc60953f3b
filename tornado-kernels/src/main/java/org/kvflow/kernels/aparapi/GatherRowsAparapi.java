package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twin of {@code AttentionKernels.gatherRows}: one work-group of 256 per selected row, its
 * work-items striding over the row's floats.
 */
final class GatherRowsAparapi extends AparapiTask {
    float[] keyRows = new float[1];
    int[] selected = new int[1];
    int[] shape = new int[3];
    float[] picked = new float[1];

    @Override
    void bind(List<Object> args) {
        keyRows = ((FloatArray) args.get(0)).toHeapArray();
        selected = ((IntArray) args.get(1)).toHeapArray();
        shape = ((IntArray) args.get(2)).toHeapArray();
        picked = ((FloatArray) args.get(3)).toHeapArray();
    }

    @Override
    int globalSize() {
        return Math.multiplyExact(Math.multiplyExact(shape[1], shape[2]), LOCAL);
    }

    @Override
    public void run() {
        int r = getGroupId();
        int width = shape[0];
        int from = selected[r] * width;
        for (int d = getLocalId(); d < width; d += LOCAL) {
            picked[r * width + d] = keyRows[from + d];
        }
    }
}
