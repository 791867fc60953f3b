package org.kvflow.ranks;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelKind;
import org.kvflow.core.model.ModelShape;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;

/**
 * The rank's side of the control lines without a process: every bad request is refused with
 * {@code ok: false} and an error naming the rank and the offending value, nothing of a refused
 * {@code writePages} is written, and the rank answers the next request.
 */
class RankServerTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final KvLayout LAYOUT = new KvLayout(new ModelShape("toy", ModelKind.TOY_MLA, 2, 16, 4, 8), KvDtype.FP8_E4M3);
    private final PageStore pool = PageStore.onHeap("pool", LAYOUT, 4, 6);
    private final RankServer server = new RankServer(new RankSpec(1, "java", LAYOUT, 4, 6), "java", pool, () -> { });

    private JsonNode answer(String line) throws Exception {
        return JSON.readTree(server.answer(line));
    }

    private void refused(String line, String error) throws Exception {
        JsonNode reply = answer(line);
        assertThat(reply.path("ok").asBoolean()).as(line).isFalse();
        assertThat(reply.path("error").asText()).as(line).isEqualTo(error);
    }

    @Test
    void badRequestsAreRefusedNamingTheRankAndTheValue() throws Exception {
        int mla = pool.pageBytes(KvComponent.MLA);
        refused("{\"id\":1,\"op\":\"nope\"}", "rank 1: unknown op 'nope'");
        refused("{\"id\":2,\"op\":\"read\",\"layer\":9,\"component\":\"MLA\",\"offset\":0,\"length\":4}", "rank 1: layer 9 outside [0, 2)");
        refused("{\"id\":3,\"op\":\"read\",\"layer\":0,\"component\":\"MLA\",\"offset\":0,\"length\":-1}", "rank 1: length -1 is not a byte count");
        refused("{\"id\":4,\"op\":\"read\",\"layer\":0,\"component\":\"MLA\",\"offset\":" + (6L * mla - 2) + ",\"length\":4}",
                "rank 1: pool mla layer 0: bytes [" + (6L * mla - 2) + ", " + (6L * mla + 2) + ") lie outside [0, " + 6L * mla + ")");
        refused("{\"id\":5,\"op\":\"writePages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[0],\"bytes\":\"AAAA\"}",
                "rank 1: pool: 3 bytes for 1 pages of " + mla + " bytes");
        byte[] two = new byte[2 * mla];
        java.util.Arrays.fill(two, (byte) 5);
        refused("{\"id\":6,\"op\":\"writePages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[0,99],\"bytes\":\"" + Base64.getEncoder().encodeToString(two) + "\"}",
                "rank 1: pool: entry 1 names page 99, outside [0, 6)");
        refused("{\"id\":10,\"op\":\"pages\",\"layer\":0,\"component\":\"MLA\",\"pages\":[5,6]}", "rank 1: pool: entry 1 names page 6, outside [0, 6)");
        assertThat(pool.readPage(0, KvComponent.MLA, 0)).as("nothing of a refused writePages is written").containsOnly(0);
        assertThat(answer("not json").path("error").asText()).startsWith("rank 1: ");

        JsonNode written = answer("{\"id\":7,\"op\":\"writePages\",\"layer\":1,\"component\":\"MLA\",\"pages\":[3,1],\"bytes\":\""
                + Base64.getEncoder().encodeToString(two) + "\"}");
        assertThat(written.path("ok").asBoolean()).as("the rank keeps serving").isTrue();
        assertThat(written.path("id").asLong()).isEqualTo(7);
        JsonNode read = answer("{\"id\":8,\"op\":\"pages\",\"layer\":1,\"component\":\"MLA\",\"pages\":[1,3]}");
        assertThat(Base64.getDecoder().decode(read.path("bytes").asText())).isEqualTo(two);
        JsonNode hello = answer("{\"id\":9,\"op\":\"hello\"}");
        assertThat(hello.path("memory").asText()).isEqualTo("java");
        assertThat(hello.path("shared").asBoolean()).isFalse();
    }
}
