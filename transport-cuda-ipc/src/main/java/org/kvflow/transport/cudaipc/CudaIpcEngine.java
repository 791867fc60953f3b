package org.kvflow.transport.cudaipc;

import java.time.Duration;
import org.kvflow.core.Failures;
import org.kvflow.pages.MemoryUnavailableException;
import org.kvflow.pages.PageMemories;
import org.kvflow.transfer.TransferEngine;
import org.kvflow.transfer.TransferEngineUnavailableException;
import org.kvflow.transfer.TransferFactory;

/**
 * The {@code cuda-ipc} engine, found by name: the tcp transport's handshake, requests and checks,
 * with the page bytes copied GPU to GPU into a decode pool that the decode server exported by CUDA
 * IPC ({@link CudaIpcTarget}, {@link CudaIpcLanding}). Needs the cuda page memory (a CUDA driver and
 * device) where it runs, and the decode server on the same host.
 */
public final class CudaIpcEngine implements TransferEngine {
    /** The engine's name. */
    public static final String NAME = "cuda-ipc";

    @Override
    public String name() {
        return NAME;
    }

    /** The cuda page memory and a device must be here; nothing is allocated. */
    @Override
    public void check() {
        try {
            PageMemories.check("cuda");
        } catch (MemoryUnavailableException e) {
            throw new TransferEngineUnavailableException(NAME, Failures.brief(e));
        }
    }

    @Override
    public TransferFactory target(String host, int port, Duration timeout) {
        return CudaIpcTarget.of(host, port).timeout(timeout);
    }
}
