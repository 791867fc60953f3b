package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.dsl.DslTest;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.PrefillRun;
import org.kvflow.pages.PageStore;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.PageRun;
import org.kvflow.decode.TransferRejectedException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Sinks;
import reactor.test.StepVerifier;

class TcpTransferTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private static PrefillPipeline pipeline(int port) {
        return DslTest.modelFlow()
                .transfer(PdTransfer.via(TcpTarget.of("127.0.0.1", port).timeout(TIMEOUT))).build();
    }

    @Test
    void decodeKvOverTcpEqualsTheInMemoryRun() {
        List<PrefillRequest> requests = DslTest.requests(16);
        DecodeReceiver local = new DecodeReceiver(4096, 16, DslTest.MODEL.layout());
        StepVerifier.create(Flux.fromIterable(requests).transform(DslTest.flow(local).build())).expectNextCount(16).verifyComplete();
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(4096, 16, DslTest.MODEL.layout()), "127.0.0.1", 0);
             TcpTransferBackend probe = new TcpTransferBackend("127.0.0.1", server.port(), 16, DslTest.MODEL.layout(), 4, TIMEOUT)) {
            StepVerifier.create(Flux.fromIterable(requests).transform(pipeline(server.port())))
                    .thenConsumeWhile(r -> r instanceof PrefillResult.Completed).verifyComplete();
            for (PrefillRequest r : requests) {
                TcpTransferBackend.Digest digest = probe.digest(r.id(), r.seqLen()).block();
                assertThat(digest.ready()).isTrue();
                assertThat(digest.crc()).as("decode KV of %s", r.id()).isEqualTo(local.digest(r.id(), r.seqLen()));
            }
            assertThat(server.rejectedPages()).isZero();
        }
    }

    @Test
    void handshakeRefusesAnotherDtypeAndTheRequestsFailAlone() {
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(256, 16, DslTest.MODEL.layout()), "127.0.0.1", 0)) {
            TcpTransferBackend bf16 = new TcpTransferBackend("127.0.0.1", server.port(), 16,
                    new NsaDims(16, 40, 8, 24, 12).layout(KvDtype.BF16, 1), 4, TIMEOUT);
            assertThatThrownBy(() -> bf16.connect().block()).isInstanceOfSatisfying(TransferHandshakeException.class, e -> {
                assertThat(e.code()).isEqualTo("E-PD-4");
                assertThat(e.getMessage()).contains("page size / kv dtype mismatch: decode page size 16, kv fp8_e4m3");
            });
            assertThatThrownBy(() -> bf16.connect().block()).as("a refused handshake drops the connections, not the client: it asks again")
                    .isInstanceOf(TransferHandshakeException.class);
            TcpTransferBackend ps32 = new TcpTransferBackend("127.0.0.1", server.port(), 32, DslTest.MODEL.layout(), 4, TIMEOUT);
            assertThatThrownBy(() -> ps32.connect().block()).isInstanceOf(TransferHandshakeException.class)
                    .hasMessage("E-PD-4: page size / kv dtype mismatch: decode page size 16, kv fp8_e4m3 (60 B rows, 1 layers); prefill page size 32,"
                            + " kv dtype code 1 (60 B rows, 1 layers)");
        }
    }

    @Test
    void pagesForUnknownRequestsOrPositionsAreRejectedCountedAndNotWritten() {
        DecodeReceiver receiver = new DecodeReceiver(64, 16, DslTest.MODEL.layout());
        PageStore source = PageStore.onHeap("prefill rank", DslTest.MODEL.layout(), 16, 8);
        try (DecodeServer server = DecodeServer.start(receiver, "127.0.0.1", 0);
             TcpTransferBackend client = new TcpTransferBackend("127.0.0.1", server.port(), 16, DslTest.MODEL.layout(), 4, TIMEOUT)) {
            assertThatThrownBy(() -> client.send("ghost", 0, new PageRun(0, 1, 2), source).block()).isInstanceOf(TransferRejectedException.class)
                    .hasMessage("transfer of request ghost rejected: E-PD-PAGE: unknown request (rank 0, 2 pages)");
            long[] d = client.open("a", 2, 1).block();
            assertThatThrownBy(() -> client.send("a", 0, new PageRun(0, d[1] + 5, 1), source).block()).isInstanceOf(TransferRejectedException.class)
                    .hasMessage("transfer of request a rejected: E-PD-PAGE: decode page " + (d[1] + 5) + " is not one of its pages (rank 0)");
            assertThat(server.rejectedPages()).isEqualTo(3);
            assertThat(client.stats().block()[0]).isEqualTo(3);
            assertThat(receiver.writtenPages("a")).isZero();
            client.send("a", 0, new PageRun(0, d[0], 2), source).block();
            assertThat(receiver.writtenPages("a")).isEqualTo(2);
        }
    }

    @Test
    void receiverProcessDiesMidStreamThenRestarts() throws Exception {
        int port = RestartablePort.free("127.0.0.1"); // not one a client may take while the process is down
        DecodeServerProcess decode = startDecodeProcess(port);
        Sinks.Many<PrefillRequest> source = Sinks.many().unicast().onBackpressureBuffer();
        PrefillPipeline pipeline = pipeline(port);
        List<PrefillRequest> requests = DslTest.requests(9);
        List<DecodeServerProcess> started = new ArrayList<>(List.of(decode));
        try {
            PrefillRun run = pipeline.start(source.asFlux());
            StepVerifier.create(run.results())
                    .then(() -> requests.subList(0, 3).forEach(source::tryEmitNext))
                    .expectNextMatches(r -> r instanceof PrefillResult.Completed)
                    .expectNextMatches(r -> r instanceof PrefillResult.Completed)
                    .expectNextMatches(r -> r instanceof PrefillResult.Completed)
                    .then(() -> {
                        started.getFirst().kill();
                        requests.subList(3, 5).forEach(source::tryEmitNext);
                    })
                    .expectNextMatches(r -> r instanceof PrefillResult.Failed f && f.error() instanceof DecodeUnreachableException)
                    .expectNextMatches(r -> r instanceof PrefillResult.Failed f && f.error() instanceof DecodeUnreachableException)
                    .then(() -> assertThat(run.pools().liveRequests()).as("failed requests freed their pages").isZero())
                    .then(() -> {
                        started.add(startDecodeProcess(port));
                        requests.subList(5, 9).forEach(source::tryEmitNext);
                        source.tryEmitComplete();
                    })
                    .expectNextCount(4)
                    .verifyComplete();
            assertThat(run.pools().leakCheck()).isEmpty();
        } finally {
            started.forEach(DecodeServerProcess::close);
        }
    }


    /** A decode server in its own JVM on {@code port}; returns once it listens. */
    private static DecodeServerProcess startDecodeProcess(int port) {
        try {
            DecodeServerProcess p = DecodeServerProcess.start(DecodeServerMain.class, "1g", port, 4096, 16, DslTest.MODEL.layout());
            assertThat(p.port()).isEqualTo(port);
            return p;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
