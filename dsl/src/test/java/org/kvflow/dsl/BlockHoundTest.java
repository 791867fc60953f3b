package org.kvflow.dsl;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.TcpTransferBackend;
import org.kvflow.operators.PrefillResult;
import org.kvflow.decode.DecodeReceiver;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** No stage blocks a non-blocking Reactor thread, even with a blocking TCP transfer and a journal. */
class BlockHoundTest {
    @BeforeAll
    static void install() {
        BlockHound.install();
    }

    @Test
    void blockHoundIsWatching() {
        StepVerifier.create(reactor.core.publisher.Mono.delay(Duration.ofMillis(1)).doOnNext(x -> {
                    try {
                        Thread.sleep(1);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }))
                .expectErrorMatches(e -> e instanceof reactor.blockhound.BlockingOperationError)
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void blockingHappensOnlyOnBoundedElastic() {
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(4096, 16, DslTest.MODEL.layout()), "127.0.0.1", 0)) {
            PrefillPipeline pipeline = DslTest.modelFlow()
                    .transfer(PdTransfer.tcp(TcpTarget.of("127.0.0.1", server.port()).timeout(Duration.ofSeconds(5)))).build();
            StepVerifier.create(Flux.fromIterable(DslTest.requests(20)).publishOn(Schedulers.parallel()).transform(pipeline))
                    .thenConsumeWhile(r -> r instanceof PrefillResult.Completed)
                    .expectComplete()
                    .verify(Duration.ofSeconds(60));
        }
    }

    /**
     * Replies reach the caller from Netty's event loop; handing them over must never make the
     * event loop wait for a lock, however the caller's thread is timed (bounded: two seconds of calls).
     */
    @Test
    void replyHandoffNeverBlocksTheEventLoop() {
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(64, 16, DslTest.MODEL.layout()), "127.0.0.1", 0);
             TcpTransferBackend backend = new TcpTransferBackend("127.0.0.1", server.port(), 16, DslTest.MODEL.layout(), 4,
                     Duration.ofSeconds(5))) {
            long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            Mono<Integer> calls = Mono.fromCallable(() -> {
                int n = 0;
                while (System.nanoTime() < end) {
                    backend.stats();
                    n++;
                }
                return n;
            }).subscribeOn(Schedulers.boundedElastic());
            StepVerifier.create(calls).expectNextMatches(n -> n > 100).expectComplete().verify(Duration.ofSeconds(30));
        }
    }
}
