package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.URISyntaxException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.OpenSslContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.kvflow.core.model.KvLayout;
import org.kvflow.dsl.DslTest;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.PrefillRun;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.transfer.PageRun;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;

/**
 * Who may connect: beyond loopback the decode server needs mutual TLS, and then only a client whose
 * certificate its CA signed gets through; pages sent over TLS arrive intact, on BoringSSL and on the
 * JDK's TLS alike.
 */
class MutualTlsTest {
    private static final KvLayout LAYOUT = DslTest.MODEL.layout();
    private static final Duration TIMEOUT = Duration.ofSeconds(3);

    private static Path tls(String file) {
        try {
            return Path.of(MutualTlsTest.class.getResource("/tls/" + file).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static TransferTls side(String name) {
        return new TransferTls(tls(name + ".crt"), tls(name + ".key"), tls("ca.crt"));
    }

    @Test
    void anAddressBeyondLoopbackIsRefusedWithoutTls() {
        assertThatThrownBy(() -> DecodeServer.start(new DecodeReceiver(64, 16, LAYOUT), "0.0.0.0", 0, DecodeServer.Limits.DEFAULT))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("decode server on 0.0.0.0: an address beyond loopback needs mutual TLS"
                        + " (the server's certificate and key, and the CA that signs the prefill clients' certificates)");
    }

    @AfterEach
    void clearProvider() {
        System.clearProperty(TlsProvider.PROPERTY);
    }

    @ParameterizedTest
    @ValueSource(strings = {"openssl", "jdk"})
    void aClientTheCaSignedTransfersAndOthersAreTurnedAway(String provider) {
        assumeTrue(!provider.equals("openssl") || OpenSsl.isAvailable(), "BoringSSL does not load here: " + OpenSsl.unavailabilityCause());
        System.setProperty(TlsProvider.PROPERTY, provider);
        assertThat(side("server").serverContext()).as("the provider asked for")
                .isInstanceOf(provider.equals("jdk") ? JdkSslContext.class : OpenSslContext.class);
        DecodeReceiver receiver = new DecodeReceiver(64, 16, LAYOUT);
        PageStore source = PageStore.onHeap("prefill rank", LAYOUT, 16, 2);
        source.writeBytes(0, KvComponent.MLA, 9, new byte[] {77});
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, side("server"));
             TcpTransferBackend prefill = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT, side("client"))) {
            assertThat(server.tlsProvider()).isEqualTo(provider);
            long[] d = prefill.open("a", 2, 1).block();
            prefill.send("a", 0, new PageRun(0, d[0], 2), source).block();
            prefill.complete("a", 0).block();
            assertThat(receiver.isReady("kvflow prefill/a")).as("the id under the client certificate's name").isTrue();
            assertThat(receiver.store().readBytes(0, KvComponent.MLA, (int) d[0] * receiver.store().mlaPageBytes() + 9, 1)[0]).isEqualTo((byte) 77);

            TransferTls stranger = new TransferTls(tls("stranger.crt"), tls("stranger.key"), tls("ca.crt"));
            try (TcpTransferBackend other = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT, stranger)) {
                assertThatThrownBy(() -> other.connect().block()).as("a certificate another CA signed").isInstanceOf(DecodeUnreachableException.class);
            }
            try (TcpTransferBackend plain = new TcpTransferBackend("127.0.0.1", server.port(), 16, LAYOUT, 1, TIMEOUT)) {
                assertThatThrownBy(() -> plain.connect().block()).as("no TLS at all").isInstanceOf(DecodeUnreachableException.class);
            }
            assertThat(receiver.openSessions()).isEqualTo(1);
        }
    }

    @Test
    void aPipelineBuiltWithTheDslTransfersOverTls() {
        List<PrefillRequest> requests = DslTest.requests(6);
        DecodeReceiver receiver = new DecodeReceiver(1024, 16, LAYOUT);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, side("server"))) {
            PrefillPipeline pipeline = DslTest.modelFlow()
                    .transfer(PdTransfer.via(TcpTarget.of("127.0.0.1", server.port()).timeout(TIMEOUT).tls(side("client")))).build();
            StepVerifier.create(Flux.fromIterable(requests).transform(pipeline))
                    .thenConsumeWhile(r -> r instanceof PrefillResult.Completed).verifyComplete();
            for (PrefillRequest r : requests) {
                assertThat(receiver.isReady("kvflow prefill/" + r.id())).as(r.id()).isTrue();
            }
            PrefillPipeline plain = DslTest.modelFlow()
                    .transfer(PdTransfer.via(TcpTarget.of("127.0.0.1", server.port()).timeout(TIMEOUT))).build();
            PrefillRun run = plain.start(Flux.fromIterable(DslTest.requests(1)));
            StepVerifier.create(run.results())
                    .expectNextMatches(r -> r instanceof PrefillResult.Failed f && f.error() instanceof DecodeUnreachableException)
                    .verifyComplete();
            assertThat(run.pools().liveRequests()).as("the refused request freed its pages").isZero();
        }
    }

    @Test
    void unreadableTlsFilesAreNamed() {
        TransferTls missing = new TransferTls(Path.of("/nonexistent/server.crt"), tls("server.key"), tls("ca.crt"));
        assertThatThrownBy(() -> DecodeServer.start(new DecodeReceiver(64, 16, LAYOUT), "127.0.0.1", 0, DecodeServer.Limits.DEFAULT, missing))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("TLS with certificate /nonexistent/server.crt, key ");
    }
}
