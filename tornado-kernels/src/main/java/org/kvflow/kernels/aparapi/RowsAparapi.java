package org.kvflow.kernels.aparapi;

import java.util.List;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;

/**
 * Twins of the per-segment row kernels ({@code RowKernels} and {@code MatrixKernels.softmaxRows}),
 * one work-item per segment; {@link #kind} picks which, the work of each being a few loops over
 * its segment.
 */
final class RowsAparapi extends AparapiTask {
    static final int RMS = 0;
    static final int LAYER = 1;
    static final int ROPE = 2;
    static final int HADAMARD = 3;
    static final int SOFTMAX = 4;

    final int kind;
    float[] x = new float[1];
    float[] y = new float[1];
    float[] g = new float[1];
    float[] bias = new float[1];
    int[] ints = new int[1];
    int[] shape = new int[8];
    /** 1 when the rope writes where it reads (one array bound once: no aliased buffers). */
    int inPlace;

    RowsAparapi(int kind) {
        this.kind = kind;
    }

    @Override
    void bind(List<Object> args) {
        x = ((FloatArray) args.get(0)).toHeapArray();
        shape = ((IntArray) args.getLast()).toHeapArray();
        if (kind == RMS) {
            g = ((FloatArray) args.get(1)).toHeapArray();
        } else if (kind == LAYER) {
            g = ((FloatArray) args.get(1)).toHeapArray();
            bias = ((FloatArray) args.get(2)).toHeapArray();
        } else if (kind == ROPE) {
            inPlace = args.get(0) == args.get(1) ? 1 : 0;
            if (inPlace == 0) {
                y = ((FloatArray) args.get(1)).toHeapArray();
            }
            g = ((FloatArray) args.get(2)).toHeapArray();
            ints = ((IntArray) args.get(3)).toHeapArray();
        } else if (kind == SOFTMAX) {
            g = ((FloatArray) args.get(1)).toHeapArray();
            ints = ((IntArray) args.get(2)).toHeapArray();
        }
    }

    /** The array the kernel changes: the rows, or the rope's destination. */
    @Override
    List<Object> outputs(List<Object> args) {
        return List.of(args.get(kind == ROPE ? 1 : 0));
    }

    @Override
    int globalSize() {
        return shape[0];
    }

    @Override
    public void run() {
        int seg = getGlobalId();
        if (seg < shape[0]) {
            if (kind == SOFTMAX) {
                softmax(seg);
            } else if (kind == ROPE) {
                rope(seg);
            } else if (kind == HADAMARD) {
                hadamard(seg);
            } else {
                norm(seg);
            }
        }
    }

    private void norm(int seg) {
        int width = shape[1];
        int base = shape[3] + seg * shape[2];
        float mean = 0.0f;
        if (kind == LAYER) {
            for (int i = 0; i < width; i++) {
                mean = mean + x[base + i];
            }
            mean = mean / width;
        }
        float sum = 0.0f;
        for (int i = 0; i < width; i++) {
            sum = sum + (x[base + i] - mean) * (x[base + i] - mean);
        }
        float inv = 1.0f / sqrt(sum / width + 1e-6f);
        for (int i = 0; i < width; i++) {
            if (kind == LAYER) {
                x[base + i] = (x[base + i] - mean) * inv * g[i] + bias[i];
            } else {
                x[base + i] = g[i] * (x[base + i] * inv);
            }
        }
    }

    private void rope(int seg) {
        int width = shape[1];
        int from = shape[3] + seg * shape[2];
        int to = shape[6] + seg * shape[5];
        float pos = ints[seg / shape[4]];
        for (int j = 0; j < width / 2; j++) {
            float angle = pos * g[j];
            float cs = cos(angle);
            float sn = sin(angle);
            float p = x[from + 2 * j];
            float r = x[from + 2 * j + 1];
            if (inPlace != 0) {
                x[to + 2 * j] = p * cs - r * sn;
                x[to + 2 * j + 1] = p * sn + r * cs;
            } else {
                y[to + 2 * j] = p * cs - r * sn;
                y[to + 2 * j + 1] = p * sn + r * cs;
            }
        }
    }

    private void hadamard(int seg) {
        int width = shape[1];
        int base = shape[3] + seg * shape[2];
        for (int h = 1; h < width; h = h * 2) {
            for (int i = 0; i < width; i = i + 2 * h) {
                for (int j = i; j < i + h; j++) {
                    float p = x[base + j];
                    float r = x[base + j + h];
                    x[base + j] = p + r;
                    x[base + j + h] = p - r;
                }
            }
        }
        float scale = 1.0f / sqrt((float) width);
        for (int i = 0; i < width; i++) {
            x[base + i] = x[base + i] * scale;
        }
    }

    private void softmax(int row) {
        int width = shape[1];
        int base = row * width;
        int n = min(width, ints[row / shape[2]]);
        float s = g[0];
        float top = -3.4e38f;
        for (int j = 0; j < n; j++) {
            top = max(top, x[base + j] * s);
        }
        float sum = 0.0f;
        for (int j = 0; j < n; j++) {
            float e = exp(x[base + j] * s - top);
            x[base + j] = e;
            sum = sum + e;
        }
        for (int j = 0; j < width; j++) {
            if (j < n) {
                x[base + j] = x[base + j] / sum;
            } else {
                x[base + j] = 0.0f;
            }
        }
    }
}
