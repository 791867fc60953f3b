package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.LongStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.TransferBackend;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;

/** A run's resources are tied to its subscription: whatever it acquired is closed on every way out, once, after its aborts. */
class RunResourcesTest {
    /** A transfer backend that records every call and its close, in order; sends never finish, aborts finish 50 ms later. */
    static final class RecordingBackend implements TransferBackend, AutoCloseable {
        final List<String> events = new CopyOnWriteArrayList<>();
        final CountDownLatch sending = new CountDownLatch(1);
        final CountDownLatch closed = new CountDownLatch(1);

        @Override
        public Mono<long[]> open(String requestId, int pageCount, int senders) {
            return Mono.fromCallable(() -> {
                events.add("open " + requestId);
                return LongStream.range(0, pageCount).toArray();
            });
        }

        @Override
        public Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
            return Mono.<Void>never().doOnSubscribe(s -> {
                events.add("send " + requestId);
                sending.countDown();
            });
        }

        @Override
        public Mono<Void> complete(String requestId, int rank) {
            return Mono.fromRunnable(() -> events.add("complete " + requestId));
        }

        @Override
        public Mono<Void> abort(String requestId) {
            return Mono.delay(Duration.ofMillis(50)).then(Mono.fromRunnable(() -> events.add("abort " + requestId)));
        }

        @Override
        public void close() {
            events.add("close");
            closed.countDown();
        }
    }

    private static TransferSpec to(TransferBackend backend) {
        return new TransferSpec(null, "recording backend", shape -> backend);
    }

    private static void assertClosed(KvGroup group) {
        assertThatThrownBy(() -> group.stores().rank(0).readPage(KvComponent.MLA, 0)).as("the pools' memory was freed")
                .isInstanceOf(IllegalStateException.class).hasMessage("rank 0 is closed");
    }

    @Test
    void aTransferFactoryThatFailsAfterThePoolsWereAllocatedLeavesThemClosed() {
        PrefillRun run = DslTest.modelFlow().transfer(new TransferSpec(null, "broken", shape -> {
            throw new IllegalStateException("no transfer backend here");
        })).build().start(Flux.fromIterable(DslTest.requests(3)));
        StepVerifier.create(run.results()).expectErrorMessage("no transfer backend here").verify(Duration.ofSeconds(30));
        assertClosed(java.util.Objects.requireNonNull(run.group()));
    }

    @Test
    void aJournalThatFailsToOpenAfterTheBackendClosesTheBackendAndThePoolsOnce(@TempDir Path dir) throws Exception {
        CpSharedKvConfig config = DslTest.CONFIG.toBuilder().hicache(HiCacheConfig.builder().enabled(true).writePolicy(WritePolicy.WRITE_THROUGH).build()).build();
        Path journal = Files.createDirectories(dir.resolve("journal"));
        RecordingBackend backend = new RecordingBackend();
        PrefillPipeline pipeline = KvFlow.prefill(config).model(DslTest.MODEL)
                .admit(Admission.batchGate().maxRequests(4)).split(Split.inSeq()).own(Ownership.byPageId().pagesPerRank(64))
                .write(Write.ownerRows()).materialize(Materialize.fullView()).backup(HiCacheBackup.journal(journal))
                .transfer(to(backend)).build();
        Files.delete(journal);
        Files.writeString(journal, "a file where the journal's directory was");
        PrefillRun run = pipeline.start(Flux.fromIterable(DslTest.requests(3)));
        StepVerifier.create(run.results()).expectError().verify(Duration.ofSeconds(30));
        assertThat(backend.events).as("acquired before the journal failed: closed, once").containsExactly("close");
        assertClosed(java.util.Objects.requireNonNull(run.group()));
    }

    @Test
    void aRunCancelledDuringTransferFinishesItsAbortsBeforeTheBackendClosesAndSendsNothingAfter() throws Exception {
        RecordingBackend backend = new RecordingBackend();
        PrefillRun run = DslTest.modelFlow().transfer(to(backend)).build().start(Flux.fromIterable(DslTest.requests(6)));
        Disposable subscription = run.results().subscribe();
        assertThat(backend.sending.await(30, TimeUnit.SECONDS)).as("a send started").isTrue();
        subscription.dispose();
        assertThat(backend.closed.await(30, TimeUnit.SECONDS)).as("the backend closed after the cancel").isTrue();
        List<String> events = List.copyOf(backend.events);
        assertThat(events).last().isEqualTo("close");
        List<String> opened = events.stream().filter(e -> e.startsWith("open ")).map(e -> e.substring(5)).toList();
        assertThat(events.stream().filter(e -> e.startsWith("abort ")).map(e -> e.substring(6)).toList())
                .as("every open request aborted before the close").containsExactlyInAnyOrderElementsOf(opened).isNotEmpty();
        Thread.sleep(200);
        assertThat(backend.events).as("nothing after the close").hasSameSizeAs(events);
        assertClosed(java.util.Objects.requireNonNull(run.group()));
    }
}
