package org.kvflow.operators.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.shard.ShardOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import org.kvflow.model.KvModel;

/** Every signal path of the hand-written admission operator. */
class AdmissionOperatorTest {
    private static final CpSharedKvConfig BS1 = Workloads.sharedBsGt1(2, 16, 1, 8192L).toBuilder().bsGt1(false).maxRequests(null).build();

    private static KvGroup group(int pagesPerRank) {
        return KvGroup.create(BS1, PoolLayout.SHARED, PoolCapacity.ofPages(pagesPerRank, 16), KvModel.pagesOnly(), false);
    }

    private static PrefillRequest req(String id, int tokens) {
        return new PrefillRequest(id, new int[tokens], 0);
    }

    private static List<String> ids(PrefillBatch batch) {
        return batch.entries().stream().map(e -> e.state().id()).toList();
    }

    @Test
    void noDemandNoUpstreamRequest() {
        TestPublisher<PrefillRequest> source = TestPublisher.create();
        StepVerifier.create(source.flux().transform(new AdmissionOperator(group(8), 4)), 0)
                .expectSubscription()
                .then(source::assertWasNotRequested)
                .thenRequest(1)
                .then(() -> source.assertMaxRequested(4))
                .then(() -> source.next(req("a", 20)))
                .assertNext(b -> assertThat(ids(b)).containsExactly("a"))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        source.assertCancelled();
    }

    @Test
    void oneBatchPerRequestedElement() {
        StepVerifier.create(Flux.just(req("a", 10), req("b", 10), req("c", 10)).transform(new AdmissionOperator(group(8), 4)), 0)
                .thenRequest(1)
                .assertNext(b -> assertThat(ids(b)).containsExactly("a"))
                .expectNoEvent(Duration.ofMillis(20))
                .thenRequest(1)
                .assertNext(b -> assertThat(ids(b)).containsExactly("b"))
                .thenRequest(5)
                .assertNext(b -> assertThat(ids(b)).containsExactly("c"))
                .verifyComplete();
    }

    @Test
    void waitsForFreedPagesUnderVirtualTime() {
        // 2 ranks x 3 pages = 5 usable pages of 16 tokens; each request needs 4 pages
        StepVerifier.withVirtualTime(() -> {
                    KvGroup group = group(3);
                    return Flux.just(req("a", 60), req("b", 60))
                            .transform(new AdmissionOperator(group, 4))
                            .transform(new ShardOperator(group))
                            .concatMap(batch -> Mono.delay(Duration.ofMillis(50)).thenReturn(batch), 1)
                            .doOnNext(batch -> batch.entries().forEach(e -> group.release(e.state(), false)));
                })
                .expectSubscription()
                .expectNoEvent(Duration.ofMillis(50))
                .assertNext(b -> assertThat(ids(b)).containsExactly("a"))
                .expectNoEvent(Duration.ofMillis(49))
                .thenAwait(Duration.ofMillis(1))
                .assertNext(b -> assertThat(ids(b)).containsExactly("b"))
                .verifyComplete();
    }

    @Test
    void staysSilentWhilePagesAreHeldThenResumes() {
        KvGroup group = group(3);
        List<PrefillBatch> held = new java.util.ArrayList<>();
        StepVerifier.create(Flux.just(req("a", 60), req("b", 60)).transform(new AdmissionOperator(group, 4))
                        .transform(new ShardOperator(group)).doOnNext(held::add))
                .expectNextCount(1)
                .expectNoEvent(Duration.ofMillis(50))
                .then(() -> group.release(held.getFirst().entries().getFirst().state(), false))
                .assertNext(b -> assertThat(ids(b)).containsExactly("b"))
                .then(() -> group.release(held.get(1).entries().getFirst().state(), false))
                .verifyComplete();
        assertThat(group.leakCheck()).isEmpty();
    }

    @Test
    void upstreamErrorAfterQueuedRequestsAreAdmitted() {
        TestPublisher<PrefillRequest> source = TestPublisher.create();
        StepVerifier.create(source.flux().transform(new AdmissionOperator(group(8), 4)))
                .then(() -> source.next(req("a", 10), req("b", 10)).error(new IllegalStateException("boom")))
                .expectNextCount(2)
                .expectErrorMessage("boom")
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void cancelMidStreamReleasesWaitingRequests() {
        KvGroup group = group(3);
        StepVerifier.create(Flux.just(req("a", 60), req("b", 60), req("c", 10)).transform(new AdmissionOperator(group, 4))
                        .transform(new ShardOperator(group)), 1)
                .expectNextCount(1)
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertThat(group.liveRequests()).as("only the emitted request, which downstream owns").isEqualTo(1);
        group.releaseAll();
        assertThat(group.leakCheck()).isEmpty();
        assertThat(group.reservedPages()).isZero();
    }

    @Test
    void lateSignalsAfterCompletionAreDropped() {
        TestPublisher<PrefillRequest> source = TestPublisher.createNoncompliant(TestPublisher.Violation.CLEANUP_ON_TERMINATE);
        StepVerifier.create(source.flux().transform(new AdmissionOperator(group(8), 4)))
                .then(() -> source.next(req("a", 10)).complete())
                .expectNextCount(1)
                .then(() -> source.next(req("late", 10)))
                .then(() -> source.error(new IllegalStateException("late error")))
                .expectComplete()
                .verifyThenAssertThat()
                .hasDroppedElements()
                .hasDroppedErrorWithMessage("late error");
    }

    @Test
    void chunkedRequestContinuesInLaterBatches() {
        CpSharedKvConfig chunk32 = BS1.toBuilder().chunkedPrefillSize(32L).build();
        KvGroup group = KvGroup.create(chunk32, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), false);
        StepVerifier.create(Flux.just(req("long", 70)).transform(new AdmissionOperator(group, 4)).transform(new ShardOperator(group)))
                .assertNext(b -> assertThat(b.entries().getFirst()).extracting(PrefillBatch.Entry::chunkStart, PrefillBatch.Entry::chunkLen,
                        PrefillBatch.Entry::lastChunk).containsExactly(0L, 32L, false))
                .assertNext(b -> assertThat(b.entries().getFirst().chunkStart()).isEqualTo(32L))
                .assertNext(b -> assertThat(b.entries().getFirst()).extracting(PrefillBatch.Entry::chunkLen,
                        PrefillBatch.Entry::lastChunk).containsExactly(6L, true))
                .verifyComplete();
    }

    @Test
    void namedForScannable() {
        Flux<PrefillBatch> flux = Flux.<PrefillRequest>empty().transform(new AdmissionOperator(group(8), 4));
        assertThat(reactor.core.Scannable.from(flux).name()).isEqualTo("kvflow.admit");
    }
}
