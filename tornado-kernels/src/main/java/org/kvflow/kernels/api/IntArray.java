package org.kvflow.kernels.api;

import java.util.Objects;

/** An {@code int[]} a task graph can move to a device (page lists, offsets); wraps a heap array. */
public final class IntArray {
    private final int[] data;

    public IntArray(int size) {
        this(new int[size]);
    }

    private IntArray(int[] data) {
        this.data = data;
    }

    /** Wraps {@code data} without copying; the array is shared with the caller. */
    public static IntArray fromArray(int[] data) {
        return new IntArray(Objects.requireNonNull(data, "data"));
    }

    public int get(int i) {
        return data[i];
    }

    public void set(int i, int value) {
        data[i] = value;
    }

    public int getSize() {
        return data.length;
    }

    /** The wrapped array itself (not a copy): what a backend binds to its kernel. */
    public int[] toHeapArray() {
        return data;
    }
}
