package org.kvflow.operators.materialize;

import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.Device;
import org.kvflow.model.KvConsumer;
import org.kvflow.model.KvModel;
import org.kvflow.model.StoreLayerView;
import org.kvflow.operators.group.RequestState;

/**
 * The attention step on a full view: for each layer, the model's consumer attends for the
 * request's sampled queries over the layer's keys, which it reads through a {@link StoreLayerView}
 * of the request's view pages (in place where the view's memory reaches the kernel device, from the
 * heap elsewhere). The consumer is made on first use and keeps its device buffers from request to
 * request until {@link #close()}.
 */
final class ViewAttention implements AutoCloseable {
    private final KvModel model;
    private final Device device;
    private @Nullable KvConsumer consumer;

    ViewAttention(KvModel model, Device device) {
        this.model = model;
        this.device = device;
    }

    /** The attention outputs of the request's sampled {@code positions}, keyed {@code layer · seqLen + position}. */
    synchronized Map<Long, float[]> run(FullView view, long[] pageTable, RequestState state, long[] positions) {
        Map<Long, float[]> outputs = new HashMap<>();
        if (positions.length == 0) {
            return outputs;
        }
        int ps = view.store().pageSize();
        int keyCount = (int) positions[positions.length - 1] + 1;
        // only this request's pages of the view, in position order: key j lies in page j / ps of what is read
        long[] viewPages = new long[(keyCount + ps - 1) / ps];
        for (int p = 0; p < viewPages.length; p++) {
            viewPages[p] = view.viewPage(pageTable[p]);
        }
        if (consumer == null) {
            consumer = model.consumer(device);
        }
        int[] tokenIds = state.request().tokenIds();
        long seqLen = state.request().seqLen();
        for (int l = 0; l < model.layerCount(); l++) {
            float[][] out = consumer.attend(l, new StoreLayerView(view.store(), l, viewPages, keyCount, device), tokenIds, positions);
            for (int i = 0; i < positions.length; i++) {
                outputs.put(l * seqLen + positions[i], out[i]);
            }
        }
        return outputs;
    }

    /** Frees the consumer's device buffers (waits for a run in progress: cancellation may come from another thread). */
    @Override
    public synchronized void close() {
        if (consumer != null) {
            consumer.close();
            consumer = null;
        }
    }
}
