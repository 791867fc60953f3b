package org.kvflow.model;

import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.Device;

/**
 * The model behind a pipeline (contract §3.8): per layer and chunk, what computes the chunk's KV
 * rows ({@link #producer}) and what attends over the full view the pipeline rebuilds
 * ({@link #consumer}). A model that stores bytes has a {@link #layout()}: the byte layout of its
 * rows, which the pipeline's pools, journal and transfer use. {@link #pagesOnly()} is the model
 * without bytes, for planning pages of large workloads cheaply. Implementations are immutable;
 * producers and consumers are made per run and closed when it ends.
 */
public interface KvModel {
    /** {@return the model that stores no bytes: the pipeline plans, owns and transfers pages only} */
    static KvModel pagesOnly() {
        return PagesOnly.MODEL;
    }

    /** {@return a label for reports and errors} */
    String name();

    /** {@return whether the model's rows are computed and stored; false only for {@link #pagesOnly()}} */
    default boolean storesBytes() {
        return true;
    }

    /**
     * The byte layout of the model's rows: widths, layers and KV dtype.
     *
     * @return the layout
     * @throws IllegalStateException for a model that stores no bytes
     */
    KvLayout layout();

    /** {@return how many layers the model's rows cover (0 without bytes)} */
    default int layerCount() {
        return storesBytes() ? layout().shape().layers() : 0;
    }

    /**
     * A producer for one run, computing on {@code device}.
     *
     * @param device the pipeline's kernel device
     * @return a producer the caller closes
     * @throws IllegalStateException for a model that stores no bytes
     */
    KvProducer producer(Device device);

    /**
     * A consumer for one run, computing on {@code device}.
     *
     * @param device the pipeline's kernel device
     * @return a consumer the caller closes
     * @throws IllegalStateException for a model that stores no bytes
     */
    KvConsumer consumer(Device device);
}
