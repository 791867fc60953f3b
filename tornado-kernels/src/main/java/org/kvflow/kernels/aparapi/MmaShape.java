package org.kvflow.kernels.aparapi;

/**
 * The tile shape of the kernel API's matrix-multiply-accumulate intrinsic ({@code mmaTiles}): a
 * work-group adds an {@code M × K} tile times the transpose of an {@code N × K} tile to an
 * {@code M × N} tile. Rows lie a stride apart that is 4 floats longer than a row, so that the rows
 * a tensor-core fragment loads fall in different shared-memory banks. A backend that translates
 * the intrinsic (the cuda device's tensor-core body) is written for this shape.
 */
public final class MmaShape {
    /** Rows of A and of C. */
    public static final int M = 64;
    /** Rows of B, columns of C. */
    public static final int N = 64;
    /** Columns of A and of B: the depth one call adds. */
    public static final int K = 32;
    /** Floats from one row of A (or of B) to the next. */
    public static final int AB_STRIDE = K + 4;
    /** Floats from one row of C to the next. */
    public static final int C_STRIDE = N + 4;

    private MmaShape() {}
}
