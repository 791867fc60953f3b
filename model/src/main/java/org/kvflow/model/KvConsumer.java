package org.kvflow.model;

/**
 * Runs one layer's attention for sampled queries of a request over the full view of its keys,
 * which the pipeline hands over as a {@link LayerView}. Used by one run at a time; closed when the
 * run ends (it may hold device buffers and weights).
 */
public interface KvConsumer extends AutoCloseable {
    /**
     * The attention outputs of the queries at {@code positions} (ascending) of a request whose
     * token ids are {@code tokenIds}; query {@code i} sees keys {@code 0..positions[i]}.
     *
     * @param layer     the layer
     * @param view      the layer's keys of the request, positions {@code 0..view.keyCount()-1}
     * @param tokenIds  the request's token ids (at least {@code view.keyCount()} of them)
     * @param positions the query positions, ascending, each below {@code view.keyCount()}
     * @return one output row per query, in order
     */
    float[][] attend(int layer, LayerView view, int[] tokenIds, long[] positions);

    /** Frees what the consumer holds on its device. */
    @Override
    void close();
}
