package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's side of a staged copy's checksum: a rank's reply whose bytes fail their CRC32C
 * fails that call, naming the rank, the request and both checksums, and hands no bytes on; the
 * connection keeps serving, so the next reply, intact, completes its call.
 */
class RankChannelTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aReplyWhoseBytesFailTheirChecksumFailsItsCallAndTheConnectionGoesOn() throws Exception {
        byte[] run = {1, 2, 3, 4};
        CountDownLatch checked = new CountDownLatch(1);
        try (ServerSocket listener = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            CompletableFuture<Void> rank = CompletableFuture.runAsync(() -> {
                try (Socket s = listener.accept()) {
                    DataInputStream in = new DataInputStream(s.getInputStream());
                    DataOutputStream out = new DataOutputStream(s.getOutputStream());
                    reply(in, out, run, 0xBADL); // the first reply's bytes arrive damaged
                    reply(in, out, run, crc(run));
                    checked.await(10, TimeUnit.SECONDS); // the connection stays up until the test has looked at it
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            try (RankChannel channel = RankChannel.connect(3, listener.getLocalPort(), "secret", Duration.ofSeconds(10), why -> { })
                    .block(Duration.ofSeconds(10))) {
                ObjectNode read = JSON.createObjectNode().put("op", "read");
                assertThatThrownBy(() -> channel.call(read.deepCopy(), null).block(Duration.ofSeconds(10)))
                        .isInstanceOf(IllegalStateException.class)
                        .hasMessage("rank 3: the reply to 1 dropped: the 4 bytes have CRC32C " + Long.toHexString(crc(run)) + ", the frame says bad");
                RankChannel.Reply intact = channel.call(read.deepCopy(), null).block(Duration.ofSeconds(10));
                assertThat(intact.bytes()).containsExactly(run);
                assertThat(channel.isClosed()).isFalse();
            } finally {
                checked.countDown();
            }
            rank.get();
        }
    }

    /** Reads one request frame and answers it as a rank would, its bytes behind {@code crc}. */
    private static void reply(DataInputStream in, DataOutputStream out, byte[] bytes, long crc) throws Exception {
        byte[] frame = new byte[in.readInt()];
        in.readFully(frame);
        int jsonLength = ((frame[1] & 0xFF) << 24) | ((frame[2] & 0xFF) << 16) | ((frame[3] & 0xFF) << 8) | (frame[4] & 0xFF);
        JsonNode request = JSON.readTree(new String(frame, 5, jsonLength, StandardCharsets.UTF_8));
        assertThat(request.path("token").asText()).isEqualTo("secret");
        byte[] text = JSON.createObjectNode().put("id", request.path("id").asLong()).put("ok", true).toString().getBytes(StandardCharsets.UTF_8);
        out.writeInt(1 + 4 + text.length + 8 + bytes.length);
        out.writeByte(2); // JSON and bytes
        out.writeInt(text.length);
        out.write(text);
        out.writeInt((int) crc);
        out.writeInt(bytes.length);
        out.write(bytes);
        out.flush();
    }

    private static long crc(byte[] bytes) {
        CRC32C c = new CRC32C();
        c.update(bytes);
        return c.getValue();
    }
}
