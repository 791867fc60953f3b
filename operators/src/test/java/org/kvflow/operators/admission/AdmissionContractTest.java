package org.kvflow.operators.admission;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.operators.AdmissionRejectedException;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import org.reactivestreams.Subscription;
import reactor.core.Scannable;
import reactor.core.publisher.BaseSubscriber;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import org.kvflow.model.KvModel;

/** Admission at its boundaries: the pass budgets (contract §6.2), upstream demand, the capacity refusal, and what the operator reports to Scannable. */
class AdmissionContractTest {
    private static final CpSharedKvConfig BS_GT1 = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(8).sharedKv(true).bsGt1(true).build();
    private static final CpSharedKvConfig BS1 = Workloads.sharedBsGt1(2, 16, 1, 8192L).toBuilder().bsGt1(false).maxRequests(null).build();

    private static List<String> admitted(AdmissionPass p) {
        return p.admitted().stream().map(a -> a.name() + "(" + a.extendLen() + ")").toList();
    }

    private static AdmissionCandidate req(String name, long extend, long maxNew) {
        return new AdmissionCandidate(name, extend, 0, maxNew);
    }

    @Test
    void aRequestNeedsStrictlyLessThanTheTotalBudgetWithItsDecodeReservation() {
        PrefillAdder adder = new PrefillAdder(BS_GT1);
        assertThat(adder.pass(130, 1000, null, List.of(req("a", 64, 66))).stop()).isEqualTo(AdmissionStop.NO_TOKEN);
        AdmissionPass fits = adder.pass(131, 1000, null, List.of(req("a", 64, 66)));
        assertThat(admitted(fits)).containsExactly("a(64)");
        assertThat(fits.stop()).as("131 - 64 - 66 = 1 token left").isEqualTo(AdmissionStop.END);
        assertThat(adder.pass(200, 64, null, List.of(req("a", 64, 0))).stop()).as("the current budget reaches 0").isEqualTo(AdmissionStop.NO_TOKEN);
        assertThat(adder.pass(200, 65, null, List.of(req("a", 64, 0))).stop()).isEqualTo(AdmissionStop.END);
    }

    @Test
    void theInputBudgetStopsOnlyLaterRequestsAndAtItsBoundary() {
        List<AdmissionCandidate> queue = List.of(req("a", 64, 0), req("b", 60, 0), req("c", 1, 0));
        AdmissionPass exact = new PrefillAdder(BS_GT1.toBuilder().maxPrefillTokens(128).build()).pass(100_000, 100_000, null, queue);
        assertThat(admitted(exact)).as("b's 64 paged tokens would use up the 64 left: stop").containsExactly("a(64)");
        assertThat(exact.stop()).isEqualTo(AdmissionStop.OTHER);
        AdmissionPass more = new PrefillAdder(BS_GT1.toBuilder().maxPrefillTokens(129).build()).pass(100_000, 100_000, null, queue);
        assertThat(admitted(more)).containsExactly("a(64)", "b(60)");
        PrefillAdder adder = new PrefillAdder(BS_GT1.toBuilder().maxPrefillTokens(128).build());
        AdmissionPass first = adder.pass(100_000, 100_000, null, List.of(req("big", 200, 0)));
        assertThat(admitted(first)).as("the first request is never held back by the input budget").containsExactly("big(200)");
    }

    @Test
    void extendCapAndMaxRequestsCountPageCeiledLengths() {
        PrefillAdder capped = new PrefillAdder(BS_GT1.toBuilder().maxExtendTokens(128L).build());
        assertThat(admitted(capped.pass(100_000, 100_000, null, List.of(req("a", 1, 0), req("b", 64, 0), req("c", 1, 0)))))
                .as("1 -> 64, 64 -> 64: 128 reached").containsExactly("a(1)", "b(64)");
        PrefillAdder two = new PrefillAdder(BS_GT1.toBuilder().maxRequests(2L).build());
        assertThat(admitted(two.pass(100_000, 100_000, null, List.of(req("a", 1, 0), req("b", 1, 0), req("c", 1, 0)))))
                .containsExactly("a(1)", "b(1)");
    }

    @Test
    void aChunkedRequestTakesTheChunkAndFinishesWhenItFits() {
        PrefillAdder adder = new PrefillAdder(BS_GT1.toBuilder().chunkedPrefillSize(128L).build());
        AdmissionPass rest = adder.pass(100_000, 100_000, req("long", 100, 10), List.of(req("next", 28, 0)));
        assertThat(admitted(rest)).as("the chunked request finishes (100 -> 128 paged), no room for the next").containsExactly("long(100)");
        assertThat(rest.chunked()).isNull();
        AdmissionPass more = adder.pass(100_000, 100_000, req("long", 300, 10), List.of());
        assertThat(admitted(more)).containsExactly("long(128)");
        assertThat(more.chunked()).isEqualTo("long");
        AdmissionPass truncated = adder.pass(100_000, 100_000, null, List.of(req("a", 200, 0)));
        assertThat(admitted(truncated)).as("a fresh request larger than the chunk is truncated to whole pages").containsExactly("a(128)");
        assertThat(truncated.chunked()).isEqualTo("a");
    }

    /** Room = queue capacity - requests waiting - requests asked for and not yet arrived; asked for only while downstream wants batches. */
    @Test
    void upstreamIsAskedForTheRoomTheQueueHasLeft() {
        TestPublisher<PrefillRequest> source = TestPublisher.create();
        KvGroup group = KvGroup.create(BS1, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), false); // 15 usable pages
        StepVerifier.create(source.flux().transform(new AdmissionOperator(group, 4)), 0)
                .thenRequest(2)
                .then(() -> source.assertMinRequested(4).assertMaxRequested(4))
                .then(() -> source.next(new PrefillRequest("big", new int[200], 0), new PrefillRequest("b", new int[60], 0)))
                .expectNextCount(1) // big holds 13 pages; b (4 pages) waits with budget left
                .then(() -> source.assertMinRequested(3).assertMaxRequested(3)) // 2 still coming, + 4 - 1 waiting - 2 coming
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }

    @Test
    void aRequestThatCanNeverFitIsRefusedAtOnceAndOneThatJustFitsWaits() {
        KvGroup group = KvGroup.create(BS1, PoolLayout.SHARED, PoolCapacity.ofPages(2, 16), KvModel.pagesOnly(), false); // 3 usable pages, 48 tokens
        List<PrefillResult> rejected = new ArrayList<>();
        List<String> admittedIds = new ArrayList<>();
        Flux.just(new PrefillRequest("exact", new int[48], 0), new PrefillRequest("under", new int[47], 0))
                .transform(new AdmissionOperator(group, 4))
                .doOnNext(b -> {
                    rejected.addAll(b.rejected());
                    b.entries().forEach(e -> admittedIds.add(e.state().id()));
                    b.entries().forEach(e -> group.release(e.state(), false));
                })
                .blockLast(Duration.ofSeconds(5));
        assertThat(rejected).hasSize(1).first().isInstanceOfSatisfying(PrefillResult.Failed.class, f -> {
            assertThat(f.request().id()).isEqualTo("exact");
            assertThat(f.error()).isInstanceOf(AdmissionRejectedException.class).hasMessage("request exact needs 48 tokens (prompt + decode reservation), at least the whole pool's 48: it can never be admitted");
        });
        assertThat(admittedIds).containsExactly("under");
    }

    @Test
    void theOperatorReportsItsStateToScannable() {
        TestPublisher<PrefillRequest> source = TestPublisher.create();
        KvGroup group = KvGroup.create(BS1, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), false);
        AtomicReference<Subscription> upstreamOfDownstream = new AtomicReference<>();
        BaseSubscriber<PrefillBatch> downstream = new BaseSubscriber<>() {
            @Override
            protected void hookOnSubscribe(Subscription subscription) {
                upstreamOfDownstream.set(subscription);
            }
        };
        source.flux().transform(new AdmissionOperator(group, 4)).subscribe(downstream);
        Scannable admission = Scannable.from(upstreamOfDownstream.get());
        assertThat(admission.scanUnsafe(Scannable.Attr.ACTUAL)).isSameAs(downstream);
        assertThat(admission.scan(Scannable.Attr.PARENT)).isNotNull();
        assertThat(admission.scan(Scannable.Attr.RUN_STYLE)).isEqualTo(Scannable.Attr.RunStyle.SYNC);
        assertThat(admission.scan(Scannable.Attr.CANCELLED)).isFalse();
        assertThat(admission.scan(Scannable.Attr.TERMINATED)).isFalse();
        downstream.request(1);
        assertThat(admission.scan(Scannable.Attr.REQUESTED_FROM_DOWNSTREAM)).isEqualTo(1L);
        source.next(new PrefillRequest("a", new int[20], 0), new PrefillRequest("b", new int[20], 0), new PrefillRequest("c", new int[20], 0));
        assertThat(admission.scan(Scannable.Attr.REQUESTED_FROM_DOWNSTREAM)).isZero();
        assertThat(admission.scan(Scannable.Attr.BUFFERED)).as("b and c wait").isEqualTo(2);
        source.error(new IllegalStateException("upstream broke"));
        assertThat(admission.scan(Scannable.Attr.ERROR)).hasMessage("upstream broke");
        downstream.cancel();
        assertThat(admission.scan(Scannable.Attr.CANCELLED)).isTrue();
        assertThat(admission.scan(Scannable.Attr.BUFFERED)).as("cancelling released the waiting requests").isEqualTo(0);
        assertThat(group.liveRequests()).as("only a, which downstream owns").isEqualTo(1);
        assertThat(Arrays.asList(Scannable.Attr.PREFETCH, Scannable.Attr.CAPACITY)).allSatisfy(attr -> admission.scan(attr));
    }

    @Test
    void oneMoreBoundaryPerBudget() {
        CpSharedKvConfig c = BS_GT1;
        AdmissionPass atTotal = new PrefillAdder(c).pass(130, 1000, null, List.of(req("a", 64, 66)));
        assertThat(admitted(atTotal)).as("64 + 66 >= 130: not admitted").isEmpty();
        assertThat(new PrefillAdder(c).pass(64, 1000, null, List.of(req("a", 60, 0))).stop())
                .as("60 paged to 64 leaves 0 of the total").isEqualTo(AdmissionStop.NO_TOKEN);
        assertThat(new PrefillAdder(c.toBuilder().maxPrefillTokens(64).build()).pass(1000, 1000, null, List.of(req("a", 64, 0))).stop())
                .as("the input budget used up exactly").isEqualTo(AdmissionStop.OTHER);
        assertThat(new PrefillAdder(c.toBuilder().chunkedPrefillSize(64L).build()).pass(1000, 1000, null, List.of(req("a", 64, 0))).stop())
                .as("the chunk used up exactly").isEqualTo(AdmissionStop.OTHER);
        AdmissionPass prefillMax = new PrefillAdder(c.toBuilder().prefillMaxRequests(1L).build())
                .pass(1000, 1000, null, List.of(req("a", 1, 0), req("b", 1, 0)));
        assertThat(admitted(prefillMax)).containsExactly("a(1)");
        assertThat(prefillMax.stop()).isEqualTo(AdmissionStop.OTHER);
    }

    @Test
    void aChunkedRequestThatFinishesReservesItsDecodeTokens() {
        PrefillAdder adder = new PrefillAdder(BS_GT1.toBuilder().chunkedPrefillSize(1000L).build());
        AdmissionPass p = adder.pass(250, 1000, req("long", 100, 100), List.of(req("next", 64, 0)));
        assertThat(admitted(p)).as("250 - 128 paged - 100 reserved = 22 left, next needs 64").containsExactly("long(100)");
        assertThat(p.stop()).isEqualTo(AdmissionStop.NO_TOKEN);
    }

    @Test
    void aHostHitAtTheThresholdIsLoadedNotRecomputed() {
        long t = PrefillAdder.LOAD_BACK_THRESHOLD;
        AdmissionPass p = new PrefillAdder(BS_GT1).pass(100_000, 100_000, null,
                List.of(new AdmissionCandidate("at", t + 5, t, 0), new AdmissionCandidate("under", t + 5, t - 1, 0)));
        assertThat(admitted(p)).containsExactly("at(5)", "under(" + (t + 5) + ")");
    }

    @Test
    void candidateAndOperatorArgumentsAtTheirBounds() {
        assertThatThrownBy(() -> new AdmissionCandidate("r", 8, 8, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("r: hostHitLen must be in [0, extendLen), was 8");
        assertThat(new AdmissionCandidate("r", 8, 7, 0).hostHitLen()).isEqualTo(7);
        KvGroup group = KvGroup.create(BS1, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), false);
        assertThatThrownBy(() -> new AdmissionOperator(group, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("queueCapacity must be >= 1, was 0");
        List<String> ids = new ArrayList<>();
        Flux.just(new PrefillRequest("a", new int[20], 0), new PrefillRequest("b", new int[20], 0)).transform(new AdmissionOperator(group, 1))
                .doOnNext(b -> b.entries().forEach(e -> {
                    ids.add(e.state().id());
                    group.release(e.state(), false);
                }))
                .blockLast(Duration.ofSeconds(5));
        assertThat(ids).as("a queue of one still admits every request").containsExactly("a", "b");
    }

    /** A refusal counts its decode reservation, and every batch, refusals included, gets the next id. */
    @Test
    void refusalsCountTheDecodeReservationAndBatchIdsIncrease() {
        KvGroup group = KvGroup.create(BS1, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), false); // 15 usable pages, 240 tokens
        List<Long> batchIds = new ArrayList<>();
        List<PrefillResult.Failed> rejected = new ArrayList<>();
        Flux.just(new PrefillRequest("a", new int[20], 0), new PrefillRequest("long", new int[200], 100), new PrefillRequest("b", new int[20], 0))
                .transform(new AdmissionOperator(group, 1))
                .doOnNext(b -> {
                    batchIds.add(b.batchId());
                    rejected.addAll(b.rejected());
                    b.entries().forEach(e -> group.release(e.state(), false));
                })
                .blockLast(Duration.ofSeconds(5));
        assertThat(batchIds).containsExactly(0L, 1L, 2L);
        assertThat(rejected).singleElement().satisfies(f -> assertThat(f.error()).isInstanceOf(AdmissionRejectedException.class)
                .hasMessage("request long needs 300 tokens (prompt + decode reservation), at least the whole pool's 240: it can never be admitted"));
    }

    /**
     * With pools full and a request waiting, upstream is not asked for more even where the queue has room; with nothing
     * waiting it is. Upstream is never asked for 0.
     */
    @Test
    void fullPoolsWithAWaitingHeadStopUpstreamDemand() {
        TestPublisher<PrefillRequest> source = TestPublisher.create();
        List<Long> asked = new ArrayList<>();
        KvGroup group = KvGroup.create(BS1, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), false); // 240 tokens
        StepVerifier.create(source.flux().doOnRequest(asked::add).transform(new AdmissionOperator(group, 2)), 0)
                .thenRequest(10)
                .then(() -> source.next(new PrefillRequest("full", new int[239], 0)))
                .expectNextCount(1)
                .then(() -> assertThat(group.budgetTokens()).isZero())
                .then(() -> assertThat(asked).as("nothing waits: the queue is refilled").containsExactly(2L, 1L))
                .then(() -> source.next(new PrefillRequest("b", new int[20], 0), new PrefillRequest("huge", new int[400], 0)))
                .expectNextMatches(b -> b.rejected().size() == 1)
                .then(() -> assertThat(asked).as("b waits on full pools: no more, though huge's refusal left room").containsExactly(2L, 1L))
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertThat(group.liveRequests()).as("b released on cancel; full is downstream's").isEqualTo(1);
    }

    @Test
    void everyEndUnregistersThePageListener() {
        KvGroup group = KvGroup.create(BS1, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), false);
        Flux.just(new PrefillRequest("a", new int[20], 0)).transform(new AdmissionOperator(group, 2))
                .doOnNext(b -> b.entries().forEach(e -> group.release(e.state(), false))).blockLast(Duration.ofSeconds(5));
        assertThat(group.pageListeners()).as("after completion").isZero();
        StepVerifier.create(Flux.<PrefillRequest>error(new IllegalStateException("x")).transform(new AdmissionOperator(group, 2)))
                .verifyErrorMessage("x");
        assertThat(group.pageListeners()).as("after an error").isZero();
        TestPublisher<PrefillRequest> source = TestPublisher.create();
        StepVerifier.create(source.flux().transform(new AdmissionOperator(group, 2)), 0)
                .then(() -> assertThat(group.pageListeners()).isEqualTo(1))
                .thenCancel().verify(Duration.ofSeconds(5));
        assertThat(group.pageListeners()).as("after cancellation").isZero();
    }

    @Test
    void cancellingWhileARequestIsChunkedReleasesIt() {
        CpSharedKvConfig chunking = BS1.toBuilder().chunkedPrefillSize(64L).build();
        KvGroup group = KvGroup.create(chunking, PoolLayout.SHARED, PoolCapacity.ofPages(8, 16), KvModel.pagesOnly(), false);
        StepVerifier.create(Flux.just(new PrefillRequest("long", new int[200], 0)).transform(new AdmissionOperator(group, 2)), 1)
                .expectNextMatches(b -> !b.entries().getFirst().lastChunk())
                .thenCancel()
                .verify(Duration.ofSeconds(5));
        assertThat(group.liveRequests()).as("the chunked request is released on cancel").isZero();
    }
}
