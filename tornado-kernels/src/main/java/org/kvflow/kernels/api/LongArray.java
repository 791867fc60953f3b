package org.kvflow.kernels.api;

import java.util.Objects;

/**
 * A {@code long[]} a task graph can move to a device: page pools are viewed as 8-byte words
 * because 8-byte loads get closer to HBM bandwidth than 4-byte ones. Wraps a heap array
 * (Aparapi needs one), so one array stays under 2 GiB; larger pools are split across arrays.
 */
public final class LongArray {
    private final long[] data;

    public LongArray(int size) {
        this(new long[size]);
    }

    private LongArray(long[] data) {
        this.data = data;
    }

    /** Wraps {@code data} without copying; the array is shared with the caller. */
    public static LongArray fromArray(long[] data) {
        return new LongArray(Objects.requireNonNull(data, "data"));
    }

    public long get(int i) {
        return data[i];
    }

    public void set(int i, long value) {
        data[i] = value;
    }

    public int getSize() {
        return data.length;
    }

    /** The wrapped array itself (not a copy): what a backend binds to its kernel. */
    public long[] toHeapArray() {
        return data;
    }
}
