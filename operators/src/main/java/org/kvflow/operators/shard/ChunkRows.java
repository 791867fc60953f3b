package org.kvflow.operators.shard;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.nsa.SyntheticKeys;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.operators.KvModel;

/**
 * The key side of a chunk's tokens, one kernel launch per layer on a kernel device
 * ({@link SyntheticKeys}: the same floats as {@link SyntheticNsaLayer#key}, bit for bit, on every
 * device). Each layer's kernel keeps its weights and buffers on the device until {@link #close()}.
 * Thread-safe: cancellation may close it from another thread while a chunk is computed.
 */
final class ChunkKeys implements AutoCloseable {
    private final KvModel model;
    private final Device device;
    private final @Nullable SyntheticKeys[] layers;

    ChunkKeys(KvModel model, Device device) {
        this.model = Objects.requireNonNull(model, "model");
        this.device = Objects.requireNonNull(device, "device");
        this.layers = new SyntheticKeys[model.layerCount()];
    }

    /** Token {@code i}'s key side in {@code layer}, for {@code (tokenIds[i], positions[i])}. */
    synchronized SyntheticNsaLayer.TokenKv[] of(int layer, int[] tokenIds, long[] positions) {
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
