package org.kvflow.model;

import java.util.Objects;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.nsa.HostRows;
import org.kvflow.kernels.nsa.RowEncoder;
import org.kvflow.kernels.rows.DeviceRows;

/**
 * The stored bytes of a model's rows on a kernel device, as the write stage makes them: the model's producer computes each
 * layer's key floats and a {@link RowEncoder} turns them into latent-KV rows and index codes +
 * scales, the same bytes as the host encoders on every device. Both keep their device buffers
 * until {@link #close()}. Thread-safe: cancellation may close it from another thread while a chunk
 * is computed.
 */
public final class ModelRows implements AutoCloseable {
    private final KvProducer producer;
    private final RowEncoder encoder;

    /**
     * Rows of {@code model} on {@code device}; the producer and the encoder hold device buffers until {@link #close()}.
     *
     * @param model  a model that stores bytes
     * @param device where the rows are computed and encoded
     * @throws IllegalStateException for the pages-only model
     */
    public ModelRows(KvModel model, Device device) {
        Objects.requireNonNull(model, "model");
        this.producer = model.producer(device);
        this.encoder = new RowEncoder(model.layout(), device);
    }

    /**
     * The rows of tokens {@code (tokenIds[i], positions[i])} in {@code layer}, on the host.
     *
     * @param layer     the layer
     * @param tokenIds  the tokens' ids
     * @param positions their positions
     * @return the encoded rows
     */
    public synchronized HostRows of(int layer, int[] tokenIds, long[] positions) {
        return encoder.rows(producer.keys(layer, tokenIds, positions));
    }

    /**
     * The same rows left on the device, for the page memory there to store in place.
     *
     * @param layer     the layer
     * @param tokenIds  the tokens' ids
     * @param positions their positions
     * @return the rows in device memory, valid until the next call
     */
    public synchronized DeviceRows onDevice(int layer, int[] tokenIds, long[] positions) {
        return encoder.onDevice(producer.keys(layer, tokenIds, positions));
    }

    @Override
    public synchronized void close() {
        producer.close();
        encoder.close();
    }
}
