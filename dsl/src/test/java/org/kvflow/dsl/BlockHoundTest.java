package org.kvflow.dsl;

import java.time.Duration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.PrefillResult;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.TcpTarget;
import org.kvflow.transport.tcp.TcpTransferBackend;
import reactor.blockhound.BlockHound;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.test.StepVerifier;

/** No stage blocks a non-blocking Reactor thread: the TCP transfer waits for nothing, and only the journal blocks, on boundedElastic. */
class BlockHoundTest {
    /**
     * The Java kernel device computes with parallel streams; joining them waits for CPU work, not
     * for I/O, and is the one wait allowed (on a GPU device that work is a kernel launch).
     */
    @BeforeAll
    static void install() {
        BlockHound.install(builder -> builder.allowBlockingCallsInside("org.kvflow.kernels.api.ImmutableTaskGraph$Task", "runReference"));
        // a scheduler thread parked in its queue while the classes were instrumented fails its next wake-up
        // (IllegalMonitorStateException): start Reactor's shared schedulers afresh, as earlier tests in this JVM may have used them
        Schedulers.shutdownNow();
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

    /** The whole pipeline, TCP transfer included, on Reactor's non-blocking threads: nothing in it may block. */
    @Test
    void theTcpPathNeverBlocks() {
        try (DecodeServer server = DecodeServer.start(new DecodeReceiver(4096, 16, DslTest.MODEL.layout()), "127.0.0.1", 0)) {
            PrefillPipeline pipeline = DslTest.modelFlow().scheduler(Schedulers.parallel())
                    .transfer(PdTransfer.via(TcpTarget.of("127.0.0.1", server.port()).timeout(Duration.ofSeconds(5)))).build();
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
                    backend.stats().block();
                    n++;
                }
                return n;
            }).subscribeOn(Schedulers.boundedElastic());
            StepVerifier.create(calls).expectNextMatches(n -> n > 100).expectComplete().verify(Duration.ofSeconds(30));
        }
    }
}
