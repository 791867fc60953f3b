package org.kvflow.model.synthetic;

import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.nsa.KeyFloats;
import org.kvflow.kernels.nsa.SyntheticKeys;
import org.kvflow.model.KvProducer;

/**
 * The synthetic model's key side on a kernel device, one {@link SyntheticKeys} per layer made on
 * first use; each keeps its weights on the device until {@link #close()}. Thread-safe: cancellation
 * may close it from another thread while a chunk is computed.
 */
final class SyntheticProducer implements KvProducer {
    private final SyntheticModel model;
    private final Device device;
    private final @Nullable SyntheticKeys[] layers;

    SyntheticProducer(SyntheticModel model, Device device) {
        this.model = model;
        this.device = device;
        this.layers = new SyntheticKeys[model.layerCount()];
    }

    @Override
    public synchronized KeyFloats keys(int layer, int[] tokenIds, long[] positions) {
        SyntheticKeys keys = layers[layer];
        if (keys == null) {
            keys = new SyntheticKeys(model.layer(layer), device);
            layers[layer] = keys;
        }
        return keys.keys(tokenIds, positions);
    }

    @Override
    public synchronized void close() {
        for (int l = 0; l < layers.length; l++) {
            SyntheticKeys keys = layers[l];
            if (keys != null) {
                keys.close();
                layers[l] = null;
            }
        }
    }
}
