package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.TransferTls;

/** decode-server's ready line and statistics line, as text and as JSON, on a live server, with and without TLS. */
class DecodeServerLinesTest {
    @Test
    void readyAndStatisticsLinesSayWhatTheServerHolds() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, null);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0)) {
            assertThat(DecodeServerCommand.readyLine(server, "127.0.0.1", false, null)).isEqualTo("LISTENING " + server.port());
            assertThat(DecodeServerCommand.readyLine(server, "127.0.0.1", false, 9400)).isEqualTo("LISTENING " + server.port() + " METRICS 9400");
            assertThat(new ObjectMapper().readTree(DecodeServerCommand.readyLine(server, "127.0.0.1", true, null)).has("metrics")).isFalse();
            assertThat(server.tlsProvider()).isNull();
            assertThat(new ObjectMapper().readTree(DecodeServerCommand.readyLine(server, "127.0.0.1", true, null)).has("tls")).isFalse();
            JsonNode ready = new ObjectMapper().readTree(DecodeServerCommand.readyLine(server, "127.0.0.1", true, 9400));
            assertThat(ready.get("metrics").asInt()).isEqualTo(9400);
            assertThat(ready.get("listening").asInt()).isEqualTo(server.port());
            assertThat(ready.get("pages").asInt()).isEqualTo(63);
            assertThat(ready.get("layers").asInt()).isZero();
            receiver.open("r", 3, 2);
            assertThat(DecodeServerCommand.statsLine(server, false))
                    .isEqualTo("stats: 0 connections, 1 open sessions (1 incomplete, 0 ready), 0 expired unreleased, 3 pages in use, 0 pages refused,"
                            + " 0 refusals");
            JsonNode stats = new ObjectMapper().readTree(DecodeServerCommand.statsLine(server, true));
            assertThat(stats.get("openSessions").asInt()).isEqualTo(1);
            assertThat(stats.get("pagesInUse").asInt()).isEqualTo(3);
            assertThat(stats.get("refusedPages").asLong()).isZero();
            assertThat(stats.has("lastRefusal")).as("nothing refused yet").isFalse();
        }
    }

    @Test
    void theJsonStatisticsLineSaysWhyTheLatestPeerWasTurnedAway() throws Exception {
        DecodeServer.Limits oneConnection = new DecodeServer.Limits(Duration.ofSeconds(10), Duration.ofMinutes(1), 1);
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(64, 16, null), "127.0.0.1", 0, oneConnection);
             Socket held = new Socket("127.0.0.1", server.port())) {
            for (int i = 0; i < 250 && server.connections() == 0; i++) {
                Thread.sleep(20); // the server takes the first connection before the second comes
            }
            try (Socket surplus = new Socket("127.0.0.1", server.port())) {
                surplus.setSoTimeout(5_000);
                assertThat(surplus.getInputStream().read()).as("the second connection closed by the server").isEqualTo(-1);
                JsonNode stats = new ObjectMapper().readTree(DecodeServerCommand.statsLine(server, true));
                assertThat(stats.get("refusals").asLong()).as("refusals: %s", server.recentRefusals()).isEqualTo(1);
                assertThat(stats.get("lastRefusal").asText())
                        .isEqualTo("decode server refused connection from /127.0.0.1:" + surplus.getLocalPort() + ": 1 connections open, at most 1");
            }
            for (int i = 0; i < 250 && server.connections() != 1; i++) {
                Thread.sleep(20); // the server counts the refused one out when its close completes, after the peer saw it
            }
            assertThat(server.connections()).as("the first one still served (refusals: %s)", server.recentRefusals()).isEqualTo(1);
        }
    }

    @Test
    void theReadyLineNamesTheTlsTheServerRunsOn() throws Exception {
        Path certs = Path.of("../dsl/src/test/resources/tls"); // the repository's test-only certificates for 127.0.0.1
        TransferTls tls = new TransferTls(certs.resolve("server.crt"), certs.resolve("server.key"), certs.resolve("ca.crt"));
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(64, 16, null), "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, tls)) {
            String provider = server.tlsProvider();
            assertThat(provider).isIn("openssl", "jdk");
            assertThat(DecodeServerCommand.readyLine(server, "127.0.0.1", false, 9400))
                    .isEqualTo("LISTENING " + server.port() + " METRICS 9400 TLS " + provider);
            assertThat(new ObjectMapper().readTree(DecodeServerCommand.readyLine(server, "127.0.0.1", true, null)).get("tls").asText())
                    .isEqualTo(provider);
        }
    }

    @Test
    void metricsAreServedInThePrometheusTextFormatAndOtherPathsAre404() throws Exception {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, null);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0);
             MetricsEndpoint endpoint = MetricsEndpoint.start(DecodeServerCommand.meters(server), "127.0.0.1", 0)) {
            receiver.open("r", 3, 2);
            java.net.http.HttpClient http = java.net.http.HttpClient.newHttpClient();
            java.net.http.HttpResponse<String> scrape = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + endpoint.port() + "/metrics")).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(scrape.statusCode()).isEqualTo(200);
            assertThat(scrape.headers().firstValue("Content-Type")).hasValue(MetricsEndpoint.CONTENT_TYPE);
            assertThat(scrape.body()).contains("# HELP kvflow_decode_pages_inuse decode pages held", "kvflow_decode_pages_inuse 3.0",
                    "kvflow_decode_sessions_incomplete 1.0", "# TYPE kvflow_decode_refusals_total counter", "kvflow_decode_refusals_total 0.0");
            java.net.http.HttpResponse<String> other = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create("http://127.0.0.1:" + endpoint.port() + "/")).build(), java.net.http.HttpResponse.BodyHandlers.ofString());
            assertThat(other.statusCode()).isEqualTo(404);
            assertThat(other.body()).isEqualTo("only GET /metrics is served here\n");
        }
    }

    @Test
    void aMetricsPortThatCannotBeBoundNamesTheFlag() throws Exception {
        try (java.net.ServerSocket taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> MetricsEndpoint.start(
                            new io.micrometer.prometheusmetrics.PrometheusMeterRegistry(io.micrometer.prometheusmetrics.PrometheusConfig.DEFAULT),
                            "127.0.0.1", taken.getLocalPort()))
                    .isInstanceOf(org.kvflow.core.json.MalformedInputException.class)
                    .hasMessageStartingWith("--metrics-port: cannot listen on 127.0.0.1:" + taken.getLocalPort() + ": ");
        }
    }

    @Test
    void theReadyLineNamesTheEngineThatLandsPages() throws Exception {
        try (org.kvflow.pages.NativePageMemory pool = new org.kvflow.pages.NativePageMemory()) {
            DecodeReceiver receiver = new DecodeReceiver(64, 16, new org.kvflow.core.model.KvLayout(new org.kvflow.core.model.ModelShape(
                    "synthetic-toy", org.kvflow.core.model.ModelKind.TOY_MLA, 1, 40, 8, 24), org.kvflow.core.model.KvDtype.FP8_E4M3), pool);
            try (org.kvflow.transport.ucx.UcxLanding landing = new org.kvflow.transport.ucx.UcxLanding(receiver.store());
                 DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, null, landing)) {
                assertThat(DecodeServerCommand.readyLine(server, "127.0.0.1", false, null)).isEqualTo("LISTENING " + server.port() + " ENGINE ucx");
                assertThat(new ObjectMapper().readTree(DecodeServerCommand.readyLine(server, "127.0.0.1", true, null)).get("engine").asText())
                        .isEqualTo("ucx");
            }
        }
    }
}
