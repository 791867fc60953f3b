package org.kvflow.kernels.api;

import java.util.Objects;

/** A {@code float[]} a task graph can move to a device (queries, keys, scores); wraps a heap array. */
public final class FloatArray {
    private final float[] data;

    public FloatArray(int size) {
        this(new float[size]);
    }

    private FloatArray(float[] data) {
        this.data = data;
    }

    /** Wraps {@code data} without copying; the array is shared with the caller. */
    public static FloatArray fromArray(float[] data) {
        return new FloatArray(Objects.requireNonNull(data, "data"));
    }

    public float get(int i) {
        return data[i];
    }

    public void set(int i, float value) {
        data[i] = value;
    }

    public int getSize() {
        return data.length;
    }

    /** The wrapped array itself (not a copy): what a backend binds to its kernel. */
    public float[] toHeapArray() {
        return data;
    }
}
