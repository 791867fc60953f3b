package org.kvflow.model;

import org.kvflow.kernels.nsa.KeyFloats;

/**
 * Computes the key side of a chunk's tokens for one layer, before it is stored: the pipeline's
 * write stage encodes it into the layout's bytes on the same device
 * ({@link org.kvflow.kernels.nsa.RowEncoder}) and stores each row on its owner. Used by one run at
 * a time; closed when the run ends (it may hold device buffers and weights).
 */
public interface KvProducer extends AutoCloseable {
    /**
     * The key floats of tokens {@code (tokenIds[i], positions[i])} in {@code layer}.
     *
     * @param layer     the layer
     * @param tokenIds  the tokens' ids
     * @param positions their positions in the request
     * @return one row per token, in the layout's widths
     * @throws IllegalArgumentException if the lists differ in length or a position is negative
     */
    KeyFloats keys(int layer, int[] tokenIds, long[] positions);

    /** Frees what the producer holds on its device. */
    @Override
    void close();
}
