package org.kvflow.transfer;

import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.TransferBackendKind;

/**
 * A PD transfer as a pipeline is given it, the plug-in seam for transports: the config backend it
 * implements, where it sends, and a backend for each run. A transport module implements it (the
 * TCP one by its target); the pipeline names no transport.
 */
public interface TransferFactory {
    /** {@return the config's transfer backend this implements, or null for one that stands for none (an in-process receiver)} */
    @Nullable TransferBackendKind kind();

    /** {@return where it sends, as a pipeline's description shows it} */
    String target();

    /**
     * A backend for one run of a pipeline; closed (when it is {@link AutoCloseable}) as the run ends.
     *
     * @param shape the run's page size, CP size and row layout
     * @return the backend
     */
    TransferBackend open(RunShape shape);
}
