package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.UnpooledByteBufAllocator;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;

/**
 * The rank's side of the control frames without a process: every bad request is refused with
 * {@code ok: false} and an error naming the rank and the offending value (bytes that fail their
 * CRC32C included), nothing of a refused {@code writePages} is written, and the rank answers the
 * next request; a frame travels through its encoding unchanged.
 */
class RankServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOKEN = "0123456789abcdef";
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 2, 16, 4, 8), KvDtype.FP8_E4M3);
    private final PageStore pool = PageStore.onHeap("pool", LAYOUT, 4, 6);
    private final RankServer server = new RankServer(new RankSpec(1, "java", LAYOUT, 4, 6), "java", pool, TOKEN, () -> { });

    /** The rank's answer to {@code json} (the coordinator's token added) with {@code bytes}, both through the wire encoding. */
    private ControlFrame exchange(String json, byte[] bytes) {
        return exchangeAs(json.replaceFirst("^\\{", "{\"token\":\"" + TOKEN + "\","), bytes);
    }

    /** The rank's answer to {@code json} as sent. */
    private ControlFrame exchangeAs(String json, byte[] bytes) {
        return wire(server.answer(wire(ControlFrame.of(json, bytes))));
    }

    private JsonNode answer(String json) throws Exception {
        return answer(json, null);
    }

    private JsonNode answer(String json, byte[] bytes) throws Exception {
        return JSON.readTree(exchange(json, bytes).json());
    }

    private void refused(String json, String error) throws Exception {
        refused(json, null, error);
    }

    private void refused(String json, byte[] bytes, String error) throws Exception {
        JsonNode reply = answer(json, bytes);
        assertThat(reply.path("ok").asBoolean()).as(json).isFalse();
        assertThat(reply.path("error").asText()).as(json).isEqualTo(error);
    }

    /** {@code frame} encoded and decoded again, as the other side reads it. */
    private static ControlFrame wire(ControlFrame frame) {
        ByteBuf buf = frame.encode(UnpooledByteBufAllocator.DEFAULT);
        try {
            assertThat(buf.readInt()).as("the length prefix").isEqualTo(buf.readableBytes());
            return ControlFrame.decode(buf);
        } finally {
            buf.release();
        }
    }

    @Test
    void badRequestsAreRefusedNamingTheRankAndTheValue() throws Exception {
        int mla = pool.pageBytes(KvComponent.MLA);
        refused("{\"id\":1,\"op\":\"nope\"}", "rank 1: unknown op 'nope'");
        refused("{\"id\":2,\"op\":\"read\",\"layer\":9,\"component\":\"MLA\",\"offset\":0,\"length\":4}", "rank 1: layer 9 outside [0, 2)");
        refused("{\"id\":3,\"op\":\"read\",\"layer\":0,\"component\":\"MLA\",\"offset\":0,\"length\":-1}", "rank 1: length -1 is not a byte count");
        refused("{\"id\":4,\"op\":\"read\",\"layer\":0,\"component\":\"MLA\",\"offset\":" + (6L * mla - 2) + ",\"length\":4}",
                "rank 1: pool mla layer 0: bytes [" + (6L * mla - 2) + ", " + (6L * mla + 2) + ") lie outside [0, " + 6L * mla + ")");
        refused("{\"id\":5,\"op\":\"writePages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[0]}", new byte[3],
                "rank 1: pool: 3 bytes for 1 pages of " + mla + " bytes");
        refused("{\"id\":11,\"op\":\"writePages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[0]}", "rank 1: the request carries no bytes");
        byte[] two = new byte[2 * mla];
        java.util.Arrays.fill(two, (byte) 5);
        refused("{\"id\":6,\"op\":\"writePages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[0,99]}", two,
                "rank 1: pool: entry 1 names page 99, outside [0, 6)");
        refused("{\"id\":10,\"op\":\"pages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[5,6]}", "rank 1: pool: entry 1 names page 6, outside [0, 6)");
        assertThat(pool.readPage(0, KvComponent.MLA, 0)).as("nothing of a refused writePages is written").containsOnly(0);
        assertThat(answer("not json").path("error").asText()).startsWith("rank 1: ");

        JsonNode written = answer("{\"id\":7,\"op\":\"writePages\",\"layer\":1,\"component\":\"MLA\",\"pages\":[3,1]}", two);
        assertThat(written.path("ok").asBoolean()).as("the rank keeps serving").isTrue();
        assertThat(written.path("id").asLong()).isEqualTo(7);
        ControlFrame read = exchange("{\"id\":8,\"op\":\"pages\",\"layer\":1,\"component\":\"MLA\",\"pages\":[1,3]}", null);
        assertThat(read.bytes()).as("the pages, raw in the reply frame").isEqualTo(two);
        JsonNode hello = answer("{\"id\":9,\"op\":\"hello\"}");
        assertThat(hello.path("memory").asText()).isEqualTo("java");
        assertThat(hello.path("shared").asBoolean()).isFalse();
    }

    @Test
    void eachOpDoesWhatItNamesOnThePool() throws Exception {
        int index = pool.pageBytes(KvComponent.INDEX);
        byte[] bytes = {1, 2, 3, 4, 5};
        assertThat(answer("{\"id\":20,\"op\":\"write\",\"layer\":1,\"component\":\"INDEX\",\"offset\":" + (index + 3) + "}", bytes)
                .path("ok").asBoolean()).isTrue();
        assertThat(java.util.Arrays.copyOfRange(pool.readPage(1, KvComponent.INDEX, 1), 3, 8)).as("written at its offset").isEqualTo(bytes);
        assertThat(pool.readPage(0, KvComponent.INDEX, 1)).as("in its layer only").containsOnly(0);
        ControlFrame read = exchange("{\"id\":21,\"op\":\"read\",\"layer\":1,\"component\":\"INDEX\",\"offset\":" + (index + 2) + ",\"length\":7}", null);
        assertThat(read.bytes()).containsExactly(0, 1, 2, 3, 4, 5, 0);
        java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
        crc.update(pool.readPage(1, KvComponent.INDEX, 1));
        JsonNode digest = answer("{\"id\":22,\"op\":\"digest\",\"layer\":1,\"component\":\"INDEX\",\"page\":1}");
        assertThat(digest.path("crc").asLong()).as("the page's CRC32C").isEqualTo(crc.getValue());
        assertThat(answer("{\"id\":23,\"op\":\"digest\",\"layer\":0,\"component\":\"INDEX\",\"page\":1}").path("crc").asLong())
                .as("another layer's page, all zeros").isNotEqualTo(crc.getValue());
        JsonNode hello = answer("{\"id\":24,\"op\":\"hello\"}");
        assertThat(hello.path("rank").asInt()).isEqualTo(1);
        assertThat(hello.path("pageSize").asInt()).isEqualTo(4);
        assertThat(hello.path("pages").asLong()).isEqualTo(6);
        assertThat(hello.path("pid").asLong()).isEqualTo(ProcessHandle.current().pid());
        assertThat(hello.path("why").asText()).as("a heap pool exports no handles, and says why").isNotEmpty();
    }

    @Test
    void bytesThatFailTheirChecksumAreRefusedAndNothingIsWritten() throws Exception {
        int mla = pool.pageBytes(KvComponent.MLA);
        byte[] page = new byte[mla];
        java.util.Arrays.fill(page, (byte) 9);
        ByteBuf buf = ControlFrame.of("{\"id\":12,\"token\":\"" + TOKEN + "\",\"op\":\"writePages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[2]}", page)
                .encode(UnpooledByteBufAllocator.DEFAULT);
        try {
            buf.setByte(buf.writerIndex() - 1, 8); // one byte of the run changed on the way
            buf.readInt();
            ControlFrame damaged = ControlFrame.decode(buf);
            assertThat(damaged.bytes()).as("damaged bytes are never handed on").isNull();
            JsonNode reply = JSON.readTree(server.answer(damaged).json());
            assertThat(reply.path("ok").asBoolean()).isFalse();
            assertThat(reply.path("error").asText()).startsWith("rank 1: writePages 12 dropped: the " + mla + " bytes have CRC32C ")
                    .contains(", the frame says ");
        } finally {
            buf.release();
        }
        assertThat(pool.readPage(0, KvComponent.MLA, 2)).as("nothing of it is written").containsOnly(0);
        assertThat(answer("{\"id\":13,\"op\":\"hello\"}").path("ok").asBoolean()).as("the rank keeps serving").isTrue();
    }

    @Test
    void aRequestWithoutTheCoordinatorsTokenIsRefusedAndChangesNothing() throws Exception {
        byte[] page = new byte[pool.pageBytes(KvComponent.MLA)];
        java.util.Arrays.fill(page, (byte) 3);
        for (String json : new String[] {
                "{\"id\":20,\"op\":\"writePages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[4]}",
                "{\"id\":21,\"token\":\"guess\",\"op\":\"writePages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[4]}"}) {
            JsonNode reply = JSON.readTree(exchangeAs(json, page).json());
            assertThat(reply.path("ok").asBoolean()).isFalse();
            assertThat(reply.path("error").asText()).isEqualTo("rank 1: the request carries no valid token: this rank serves its coordinator alone");
        }
        assertThat(pool.readPage(0, KvComponent.MLA, 4)).as("nothing written").containsOnly(0);
        ControlFrame read = exchangeAs("{\"id\":22,\"op\":\"pages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[4]}", null);
        assertThat(read.bytes()).as("nothing read").isNull();
    }

    @Test
    void aReadLargerThanOneFrameIsRefusedBeforeAnythingIsAllocated() throws Exception {
        int mla = pool.pageBytes(KvComponent.MLA);
        int many = StagedRankMemory.CHUNK / mla + 1;
        StringBuilder list = new StringBuilder();
        for (int i = 0; i < many; i++) {
            list.append(i == 0 ? "" : ",").append(i % 6);
        }
        refused("{\"id\":23,\"op\":\"pages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[" + list + "]}",
                "rank 1: " + (long) many * mla + " bytes asked for; one frame carries at most " + StagedRankMemory.CHUNK);
        refused("{\"id\":24,\"op\":\"read\",\"layer\":0,\"component\":\"MLA\",\"offset\":0,\"length\":1073741824}",
                "rank 1: 1073741824 bytes asked for; one frame carries at most " + StagedRankMemory.CHUNK);
    }

    @Test
    void aFrameOfAnUnknownTypeIsRefusedAndOneWhoseLengthsDoNotFitIsMalformed() throws Exception {
        byte[] json = ("{\"id\":30,\"token\":\"" + TOKEN + "\",\"op\":\"hello\"}").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        ByteBuf typed = UnpooledByteBufAllocator.DEFAULT.buffer().writeByte(7).writeInt(json.length).writeBytes(json);
        ByteBuf overlong = UnpooledByteBufAllocator.DEFAULT.buffer().writeByte(1).writeInt(999).writeBytes(new byte[] {'{', '}', ' '});
        try {
            ControlFrame unknown = ControlFrame.decode(typed);
            assertThat(unknown.damage()).isEqualTo("frame type 7 is neither JSON (1) nor JSON and bytes (2)");
            JsonNode reply = JSON.readTree(server.answer(unknown).json());
            assertThat(reply.path("error").asText()).isEqualTo("rank 1: hello 30 dropped: frame type 7 is neither JSON (1) nor JSON and bytes (2)");
            assertThatThrownBy(() -> ControlFrame.decode(overlong)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("a control frame's JSON length 999 does not fit its 3 bytes");
        } finally {
            typed.release();
            overlong.release();
        }
    }

    /** One frame on a raw socket: the length prefix, then the encoded frame without its own prefix. */
    private static void send(java.io.OutputStream out, ControlFrame frame) throws java.io.IOException {
        io.netty.buffer.ByteBuf buf = frame.encode(io.netty.buffer.ByteBufAllocator.DEFAULT);
        try {
            byte[] bytes = new byte[buf.readableBytes()];
            buf.readBytes(bytes);
            out.write(bytes);
            out.flush();
        } finally {
            buf.release();
        }
    }

    /** The next reply's JSON, or null when the rank closed the connection. */
    private static JsonNode reply(java.io.DataInputStream in) throws Exception {
        int length;
        try {
            length = in.readInt();
        } catch (java.io.EOFException closed) {
            return null;
        }
        byte[] frame = new byte[length];
        in.readFully(frame);
        return JSON.readTree(ControlFrame.decode(io.netty.buffer.Unpooled.wrappedBuffer(frame)).json());
    }

    @Test
    void aPeerWithoutTheTokenIsHeldToSmallFramesAndTheRankServesFewConnections() throws Exception {
        reactor.netty.DisposableServer listening = server.listen();
        try (java.net.Socket stranger = new java.net.Socket("127.0.0.1", listening.port());
             java.net.Socket coordinator = new java.net.Socket("127.0.0.1", listening.port())) {
            stranger.setSoTimeout(10_000);
            coordinator.setSoTimeout(10_000);
            java.io.DataInputStream fromRank = new java.io.DataInputStream(stranger.getInputStream());
            send(stranger.getOutputStream(), ControlFrame.of("{\"op\":\"hello\",\"id\":1}", null));
            assertThat(reply(fromRank).path("error").asText()).isEqualTo("rank 1: the request carries no valid token: this rank serves its coordinator alone");
            // a stranger announcing a staged copy's size is cut off before the rank buffers any of it
            java.io.DataOutputStream big = new java.io.DataOutputStream(stranger.getOutputStream());
            big.writeInt(FrameSplitter.BEFORE_TOKEN + 1);
            big.flush();
            assertThat(reply(fromRank)).as("the connection closed").isNull();
            // the coordinator shows the token first; then a staged copy larger than the pre-token bound passes
            java.io.DataInputStream toCoordinator = new java.io.DataInputStream(coordinator.getInputStream());
            send(coordinator.getOutputStream(), ControlFrame.of("{\"token\":\"" + TOKEN + "\",\"op\":\"hello\",\"id\":2}", null));
            assertThat(reply(toCoordinator).path("ok").asBoolean()).isTrue();
            byte[] large = new byte[FrameSplitter.BEFORE_TOKEN + 10];
            send(coordinator.getOutputStream(), ControlFrame.of("{\"token\":\"" + TOKEN + "\",\"op\":\"write\",\"id\":3,\"layer\":0,\"component\":\"MLA\","
                    + "\"offset\":0}", large));
            JsonNode written = reply(toCoordinator); // refused for its range (a pool of six small pages), but read and answered
            assertThat(written).as("a frame past the pre-token bound reached the rank").isNotNull();
            assertThat(written.path("id").asInt()).isEqualTo(3);
            // connections past the bound are closed at once
            java.util.List<java.net.Socket> more = new java.util.ArrayList<>();
            try {
                for (int i = 0; i < RankServer.MAX_CONNECTIONS + 2; i++) {
                    java.net.Socket s = new java.net.Socket("127.0.0.1", listening.port());
                    s.setSoTimeout(10_000);
                    more.add(s);
                }
                java.net.Socket last = more.getLast();
                assertThat(last.getInputStream().read()).as("a connection past the bound").isEqualTo(-1);
            } finally {
                for (java.net.Socket s : more) {
                    s.close();
                }
            }
        } finally {
            listening.disposeNow();
        }
    }
}
