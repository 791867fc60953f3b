package org.kvflow.transport.cudaipc;

import java.util.ArrayList;
import java.util.List;
import org.kvflow.pages.BufferExport;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.MissingCapabilityException;
import org.kvflow.pages.PageBuffer;
import org.kvflow.pages.PageStore;
import org.kvflow.transport.tcp.PageLanding;

/**
 * The decode side of the {@code cuda-ipc} engine: the decode pool's buffers, in GPU memory,
 * exported once by CUDA IPC, so that prefill processes on this host open them and copy pages in
 * GPU to GPU. What it describes to each client that chose {@code cuda-ipc} is every buffer's pages,
 * page size and handle ({@link IpcLandingDescription}). CUDA IPC checks no peer: any process of
 * this host that got the description can write into the pool, so the decode server checks every
 * placed page's CRC32C (on the GPU) before it counts. The handles stay valid while the pool lives.
 */
public final class CudaIpcLanding implements PageLanding {
    private final byte[] description;

    /**
     * Exports every buffer of {@code pool}.
     *
     * @param pool the decode pool, in a memory that exports buffers in place (the cuda one)
     * @throws MissingCapabilityException if the pool's memory cannot export its buffers
     */
    public CudaIpcLanding(PageStore pool) {
        BufferExport export = pool.memory().capability(BufferExport.class).orElseThrow(() -> new MissingCapabilityException(
                pool.memory().name(), BufferExport.class, "cannot export its buffers to other processes (the cuda page memory can)"));
        List<IpcLandingDescription.Buffer> buffers = new ArrayList<>();
        for (KvComponent component : KvComponent.values()) {
            for (int l = 0; l < pool.layers(); l++) {
                PageBuffer buffer = pool.buffer(l, component);
                buffers.add(new IpcLandingDescription.Buffer(buffer.pages(), buffer.pageBytes(), export.exportBuffer(buffer)));
            }
        }
        this.description = new IpcLandingDescription(ProcessHandle.current().pid(), buffers).bytes();
    }

    @Override
    public String engine() {
        return CudaIpcEngine.NAME;
    }

    @Override
    public byte[] describe() {
        return description.clone();
    }
}
