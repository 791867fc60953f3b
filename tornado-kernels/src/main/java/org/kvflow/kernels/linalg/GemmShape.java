package org.kvflow.kernels.linalg;

import org.kvflow.kernels.api.IntArray;

/**
 * The shape of a batched matrix product {@link MatrixKernels#gemm}, as the ints of its shape array:
 * for batch {@code z}, {@code C[z](m, n) = Σ_k A[z](m, k) · B[z](n, k)} with
 * <ul>
 *   <li>{@code A[z](m, k) = a[aOff + z·aBatch + m·lda + k]};</li>
 *   <li>{@code B[z](n, k) = b[bOff + z·bBatch + row·ldb + col]}, where {@code (row, col) = (n, k)},
 *       or {@code (k, n)} when {@code bTransposed}; with {@code gathered}, {@code row} is looked up
 *       as {@code rows[z·gStride + row]} (rows picked per batch, say a query's selected keys), and a
 *       looked-up row of {@code -1} reads as zeros (a selection padded to its width);</li>
 *   <li>{@code C[z](m, n)} at {@code c[cOff + z·cBatch + m·ldc + n]}, overwritten.</li>
 * </ul>
 *
 * @param m           rows of A and C
 * @param n           rows of B (columns of C)
 * @param k           the summed dimension
 * @param batch       how many products
 * @param lda         A's row stride
 * @param ldb         B's row stride
 * @param ldc         C's row stride
 * @param aOff        A's first element
 * @param bOff        B's first element
 * @param cOff        C's first element
 * @param aBatch      A's batch stride
 * @param bBatch      B's batch stride
 * @param cBatch      C's batch stride
 * @param bTransposed B is stored {@code K × N}
 * @param gathered    B's rows are looked up in the rows array
 * @param gStride     the rows array's batch stride
 */
public record GemmShape(int m, int n, int k, int batch, int lda, int ldb, int ldc, int aOff, int bOff, int cOff, int aBatch, int bBatch,
                        int cBatch, boolean bTransposed, boolean gathered, int gStride) {
    /** How many ints the shape array holds. */
    public static final int INTS = 16;

    /** A plain {@code C = A·Bᵀ} of row-major {@code m × k} and {@code n × k} matrices into {@code m × n}. */
    public static GemmShape plain(int m, int n, int k) {
        return new GemmShape(m, n, k, 1, k, k, n, 0, 0, 0, 0, 0, 0, false, false, 0);
    }

    /** {@return the shape as its array} */
    public IntArray toArray() {
        return IntArray.fromArray(new int[] {m, n, k, batch, lda, ldb, ldc, aOff, bOff, cOff, aBatch, bBatch, cBatch, bTransposed ? 1 : 0,
                gathered ? 1 : 0, gStride});
    }
}
