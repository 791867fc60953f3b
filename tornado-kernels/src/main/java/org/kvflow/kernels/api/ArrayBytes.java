package org.kvflow.kernels.api;

/** The byte size of an array a task graph moves ({@link LongArray}, {@link IntArray}, {@link FloatArray}, {@link ByteArray}, {@link LongPages}). */
public final class ArrayBytes {
    private ArrayBytes() {}

    /** @throws IllegalArgumentException if {@code array} is none of the graph's array types */
    public static long of(Object array) {
        return switch (array) {
            case LongArray a -> (long) Long.BYTES * a.getSize();
            case IntArray a -> (long) Integer.BYTES * a.getSize();
            case FloatArray a -> (long) Float.BYTES * a.getSize();
            case ByteArray a -> a.getSize();
            case LongPages p -> (long) Long.BYTES * p.pageCount() * p.pageElems();
            default -> throw new IllegalArgumentException("not a task-graph array: " + array.getClass().getSimpleName());
        };
    }
}
