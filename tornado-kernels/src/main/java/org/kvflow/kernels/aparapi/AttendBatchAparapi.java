package org.kvflow.kernels.aparapi;

import java.util.List;

/** Twin of {@code AttentionKernels.attendBatch}: the keys lie per query, row after row. */
final class AttendBatchAparapi extends AttendAparapi {
    @Override
    void bind(List<Object> args) {
        bindAttention(args, 2);
    }

    @Override
    int rowOf(int i, int j, int count, int width) {
        return (i * count + j) * width;
    }
}
