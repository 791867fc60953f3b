package org.kvflow.samples.cli;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import org.kvflow.core.json.MalformedInputException;

/**
 * {@code GET /metrics} in the Prometheus text format, served from a registry on a local port by the
 * JDK's HTTP server (one thread); every other path answers 404. Closing stops it.
 */
final class MetricsEndpoint implements AutoCloseable {
    /** The content type of the Prometheus text exposition format. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;

    private MetricsEndpoint(HttpServer server) {
        this.server = server;
    }

    /**
     * Serves {@code registry} on {@code bind:port} (port 0: any free port).
     *
     * @throws MalformedInputException naming {@code --metrics-port} when the port cannot be bound
     */
    static MetricsEndpoint start(PrometheusMeterRegistry registry, String bind, int port) {
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getByName(bind), port), 16);
        } catch (IOException e) {
            throw new MalformedInputException("--metrics-port", "cannot listen on " + bind + ":" + port + ": " + e.getMessage());
        }
        server.createContext("/", exchange -> answer(exchange, registry));
        server.start();
        return new MetricsEndpoint(server);
    }

    private static void answer(HttpExchange exchange, PrometheusMeterRegistry registry) throws IOException {
        try (exchange) {
            boolean metrics = exchange.getRequestURI().getPath().equals("/metrics") && exchange.getRequestMethod().equals("GET");
            byte[] body = (metrics ? registry.scrape() : "only GET /metrics is served here\n").getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", metrics ? CONTENT_TYPE : "text/plain; charset=utf-8");
            exchange.sendResponseHeaders(metrics ? 200 : 404, body.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(body);
            }
        }
    }

    /** The port it listens on. */
    int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
