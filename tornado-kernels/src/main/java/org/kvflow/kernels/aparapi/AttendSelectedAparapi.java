package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.IntArray;

/** Twin of {@code AttentionKernels.attendSelected}: the keys are rows of the whole key array, picked by the selection. */
final class AttendSelectedAparapi extends AttendAparapi {
    int[] selected = new int[1];

    @Override
    void bind(List<Object> args) {
        selected = ((IntArray) args.get(2)).toHeapArray();
        bindAttention(args, 3);
    }

    @Override
    int rowOf(int i, int j, int count, int width) {
        return selected[i * count + j] * width;
    }
}
