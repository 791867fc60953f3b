package org.kvflow.operators.shard;

import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.nsa.SyntheticRows;
import org.kvflow.kernels.rows.DeviceRows;
import org.kvflow.operators.KvModel;

/**
 * The stored bytes of a chunk's tokens, one {@link SyntheticRows} per layer on a kernel device:
 * latent-KV rows and index codes + scales, the same bytes as the host encoders on every device.
 * Each layer keeps its weights and buffers on the device until {@link #close()}. Thread-safe:
 * cancellation may close it from another thread while a chunk is computed.
 */
final class ChunkRows implements AutoCloseable {
    private final KvModel model;
    private final Device device;
    private final @Nullable SyntheticRows[] layers;

    ChunkRows(KvModel model, Device device) {
        this.model = Objects.requireNonNull(model, "model");
        this.device = Objects.requireNonNull(device, "device");
        this.layers = new SyntheticRows[model.layerCount()];
    }

    /** The rows of {@code (tokenIds[i], positions[i])} in {@code layer}, on the host. */
    synchronized SyntheticRows.Rows of(int layer, int[] tokenIds, long[] positions) {
        return layer(layer).rows(tokenIds, positions);
    }

    /** The same rows left on the device, for the page memory there to store in place. */
    synchronized DeviceRows onDevice(int layer, int[] tokenIds, long[] positions) {
        return layer(layer).rowsOnDevice(tokenIds, positions);
    }

    private SyntheticRows layer(int layer) {
        SyntheticRows rows = layers[layer];
        if (rows == null) {
            rows = new SyntheticRows(model.layer(layer), model.layout(), device);
            layers[layer] = rows;
        }
        return rows;
    }

    @Override
    public synchronized void close() {
        for (int l = 0; l < layers.length; l++) {
            SyntheticRows rows = layers[l];
            if (rows != null) {
                rows.close();
                layers[l] = null;
            }
        }
    }
}
