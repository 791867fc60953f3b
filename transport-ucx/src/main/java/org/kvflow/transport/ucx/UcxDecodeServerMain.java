package org.kvflow.transport.ucx;

import org.kvflow.pages.NativePageMemory;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.transport.tcp.DecodeServerMain;
import org.kvflow.transport.tcp.PageLanding;

/**
 * {@link DecodeServerMain} with the pool in native memory and page bytes that may also arrive by
 * UCX ({@link UcxLanding}); the same arguments, the same {@code LISTENING <port>} line.
 */
public final class UcxDecodeServerMain {
    private UcxDecodeServerMain() {}

    public static void main(String[] args) {
        DecodeServerMain.serve(args, new DecodeServerMain.LandingMaker() {
            @Override
            public PageMemory memory() {
                return new NativePageMemory();
            }

            @Override
            public PageLanding land(PageStore pool) {
                return new UcxLanding(pool);
            }
        });
    }
}
