package org.kvflow.transport.cudaipc;

import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.transport.tcp.DecodeServerMain;
import org.kvflow.transport.tcp.PageLanding;

/**
 * {@link DecodeServerMain} with the pool in GPU memory (the cuda page memory of the device the
 * system property {@code kvflow.decode.device} names, {@code cuda} by default) and page bytes that
 * may also arrive by CUDA IPC ({@link CudaIpcLanding}); the same arguments, the same
 * {@code LISTENING <port>} line.
 */
public final class CudaIpcDecodeServerMain {
    /** The system property naming the decode pool's device. */
    public static final String DEVICE = "kvflow.decode.device";

    private CudaIpcDecodeServerMain() {}

    public static void main(String[] args) {
        DecodeServerMain.serve(args, new DecodeServerMain.LandingMaker() {
            @Override
            public PageMemory memory() {
                return PageMemories.open(System.getProperty(DEVICE, "cuda"));
            }

            @Override
            public PageLanding land(PageStore pool) {
                return new CudaIpcLanding(pool);
            }
        });
    }
}
