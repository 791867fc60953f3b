package org.kvflow.kernels.aparapi;

/**
 * The tile shape of the kernel API's matrix-multiply-accumulate intrinsic ({@code mmaTiles}): a
 * work-group adds an {@code M × K} tile times the transpose of an {@code N × K} tile to an
 * {@code M × N} tile. A backend that translates the intrinsic (the cuda device's tensor-core
 * body) is written for this shape.
 */
public final class MmaShape {
    /** Rows of A and of C. */
    public static final int M = 64;
    /** Rows of B, columns of C. */
    public static final int N = 64;
    /** Columns of A and of B: the depth one call adds. */
    public static final int K = 32;

    private MmaShape() {}
}
