package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvLayout;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.decode.DecodeReceiver;

/** Frames the client never sends: a page whose bytes changed on the way, a frame before the handshake, COMPLETE after a refused page. */
class FrameFaultTest {
    @Test
    void aPageThatChangedOnTheWayIsRefusedByItsChecksum() throws Exception {
        KvLayout layout = TcpFixtures.LAYOUT;
        DecodeReceiver receiver = new DecodeReceiver(64, 16, layout);
        PageStore source = PageStore.onHeap("prefill rank", layout, 16, 1);
        source.writeBytes(0, KvComponent.MLA, 5, new byte[] {9});
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0); RawPeer c = new RawPeer(server.port())) {
            Frames.Reader early = c.exchange(new Frames.Writer(Frames.OPEN, 32).str("a").i32(1).i32(1).bytes());
            assertThat(early.type()).isEqualTo(Frames.REJECT);
            assertThat(early.skipType().str()).isEqualTo("E-PD-0");
            assertThat(early.str()).isEqualTo("handshake first");
            assertThat(c.hello(layout, 16, 4).type()).isEqualTo(Frames.HELLO_OK);
            long page = c.open("a", 1, 1)[0];
            // the checksum of the real page, sent with zeroed bytes
            Frames.Writer w = new Frames.Writer(Frames.PAGES, 1 << 16).str("a").i32(0).i64(page).i32(1).u8(1)
                    .i32(pageCrc(source, 0));
            for (int l = 0; l < source.layers(); l++) {
                w.raw(new byte[source.mlaPageBytes()], 0, source.mlaPageBytes());
            }
            for (int l = 0; l < source.layers(); l++) {
                w.raw(new byte[source.indexPageBytes()], 0, source.indexPageBytes());
            }
            Frames.Reader refused = c.exchange(w.bytes());
            assertThat(refused.type()).isEqualTo(Frames.REJECT);
            assertThat(refused.skipType().str()).isEqualTo("E-PD-CRC");
            assertThat(refused.str()).startsWith("request a: page " + page + " arrived with crc32c ");
            assertThat(receiver.writtenPages("a")).isZero();
            assertThat(server.rejectedPages()).isEqualTo(1);
            // completing after a refused page does not make the request ready
            assertThat(c.exchange(new Frames.Writer(Frames.COMPLETE, 16).str("a").i32(0).bytes()).type()).isEqualTo(Frames.ACK);
            assertThat(receiver.isReady("a")).isFalse();
        }
    }

    /** CRC32C of page {@code k} of a store as the frame carries it: every layer's MLA page, then every layer's indexer page. */
    private static int pageCrc(PageStore store, int k) {
        CRC32C crc = new CRC32C();
        for (KvComponent component : KvComponent.values()) {
            int bytes = store.pageBytes(component);
            for (int l = 0; l < store.layers(); l++) {
                store.checksum(l, component, (long) k * bytes, bytes, crc);
            }
        }
        return (int) crc.getValue();
    }
}
