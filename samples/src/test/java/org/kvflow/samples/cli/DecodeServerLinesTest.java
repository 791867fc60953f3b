package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transport.tcp.DecodeServer;

/** decode-server's ready line and statistics line, as text and as JSON, on a live server. */
class DecodeServerLinesTest {
    @Test
    void readyAndStatisticsLinesSayWhatTheServerHolds() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, null);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0)) {
            assertThat(DecodeServerCommand.readyLine(server, "127.0.0.1", false)).isEqualTo("LISTENING " + server.port());
            JsonNode ready = new ObjectMapper().readTree(DecodeServerCommand.readyLine(server, "127.0.0.1", true));
            assertThat(ready.get("listening").asInt()).isEqualTo(server.port());
            assertThat(ready.get("pages").asInt()).isEqualTo(63);
            assertThat(ready.get("layers").asInt()).isZero();
            receiver.open("r", 3, 2);
            assertThat(DecodeServerCommand.statsLine(server, false))
                    .isEqualTo("stats: 0 connections, 1 open sessions (1 incomplete), 3 pages in use, 0 pages refused, 0 refusals");
            JsonNode stats = new ObjectMapper().readTree(DecodeServerCommand.statsLine(server, true));
            assertThat(stats.get("openSessions").asInt()).isEqualTo(1);
            assertThat(stats.get("pagesInUse").asInt()).isEqualTo(3);
            assertThat(stats.get("refusedPages").asLong()).isZero();
        }
    }
}
