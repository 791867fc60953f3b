package org.kvflow.kernels.api;

import java.util.Objects;

/** A {@code byte[]} a task graph can move to a device (fp8 codes); wraps a heap array. */
public final class ByteArray {
    private final byte[] data;

    public ByteArray(int size) {
        this(new byte[size]);
    }

    private ByteArray(byte[] data) {
        this.data = data;
    }

    /** Wraps {@code data} without copying; the array is shared with the caller. */
    public static ByteArray fromArray(byte[] data) {
        return new ByteArray(Objects.requireNonNull(data, "data"));
    }

    public byte get(int i) {
        return data[i];
    }

    public void set(int i, byte value) {
        data[i] = value;
    }

    public int getSize() {
        return data.length;
    }

    /** The wrapped array itself (not a copy): what a backend binds to its kernel. */
    public byte[] toHeapArray() {
        return data;
    }
}
