package org.kvflow.operators.pipeline;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.AdmissionRejectedException;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.Workloads;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.operators.transfer.DelegatingTransferBackend;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.PageRun;
import org.kvflow.transfer.TransferBackend;
import org.kvflow.decode.TransferRejectedException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.test.StepVerifier;
import org.kvflow.model.synthetic.SyntheticModel;

class PipelineReliabilityTest {
    private static final CpSharedKvConfig CONFIG = Workloads.sharedBsGt1(4, 16, 4, 64L);
    private static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.FP8_E4M3, 1);

    private static void assertNothingHeld(Workloads.Rig rig) {
        KvGroup group = rig.group();
        assertThat(group.leakCheck()).isEmpty();
        assertThat(group.reservedPages()).isZero();
        assertThat(group.liveRequests()).isZero();
        group.evictCache();
        assertThat(group.physicalPagesInUse()).isZero();
    }

    @Test
    void cancellationAtAnyPointFreesEveryPage() {
        List<PrefillRequest> requests = Workloads.requests(5, 14, 150, 40);
        for (int k = 0; k <= requests.size(); k++) {
            Workloads.Rig rig = Workloads.rig(CONFIG, PoolLayout.SHARED, 40, MODEL, true, new QuerySampler(2, 1), 400);
            StepVerifier.Step<PrefillResult> step = StepVerifier.create(Flux.fromIterable(requests).transform(rig.pipeline()), 0)
                    .expectSubscription();
            if (k > 0) {
                step = step.thenRequest(k).expectNextCount(k);
            }
            step.thenCancel().verify(Duration.ofSeconds(30));
            assertNothingHeld(rig);
            assertThat(rig.receiver().incompleteSessions()).as("cancel after %d results: half-sent decode sessions aborted", k).isZero();
            assertThat(rig.receiver().openSessions()).as("cancel after %d results: only the delivered requests stay on decode (ready for it);"
                    + " completed ones the subscriber never saw are aborted", k).isEqualTo(k);
        }
    }

    @Test
    void failingTransferFailsThatRequestAloneAndFreesItsDecodePages() {
        DecodeReceiver receiver = new DecodeReceiver(400, CONFIG.pageSize(), MODEL.layout());
        TransferBackend flaky = new DelegatingTransferBackend(new InMemoryTransferBackend(receiver)) {
            @Override
            public Mono<Void> send(String requestId, int rank, PageRun run, @Nullable PageStore source) {
                if (requestId.equals("r3") && rank == 1) {
                    return Mono.error(new TransferRejectedException(requestId, "receiver died (injected)"));
                }
                return super.send(requestId, rank, run, source);
            }
        };
        KvGroup group = KvGroup.create(CONFIG, PoolLayout.SHARED, PoolCapacity.ofPages(40, 16), MODEL, true);
        CpPrefillPipeline pipeline = CpPrefillPipeline.standard(group, flaky, QuerySampler.NONE, 8);
        List<PrefillRequest> requests = Workloads.requests(8, 10, 120, 40);
        List<PrefillResult> results = Flux.fromIterable(requests).transform(pipeline).collectList().block(Duration.ofSeconds(30));

        assertThat(results).hasSize(10);
        PrefillResult r3 = results.stream().filter(r -> r.request().id().equals("r3")).findFirst().orElseThrow();
        assertThat(r3).isInstanceOfSatisfying(PrefillResult.Failed.class, f -> assertThat(f.error())
                .isInstanceOf(TransferRejectedException.class).hasMessage("transfer of request r3 rejected: receiver died (injected)"));
        assertThat(results).filteredOn(r -> !r.request().id().equals("r3")).allMatch(r -> r instanceof PrefillResult.Completed);
        assertThat(receiver.openSessions()).isEqualTo(9);
        assertThat(group.leakCheck()).isEmpty();
    }

    @Test
    void requestLargerThanThePoolIsRejectedAloneAtIntake() {
        Workloads.Rig rig = Workloads.rig(CONFIG, PoolLayout.SHARED, 8, MODEL, false, QuerySampler.NONE, 200);
        long capacity = rig.group().capacityTokens(); // (4*8 - 1) * 16 = 496
        List<PrefillRequest> requests = new ArrayList<>(Workloads.requests(3, 6, 100, 40));
        requests.add(2, new PrefillRequest("huge", new int[490], 6));
        List<PrefillResult> results = Flux.fromIterable(requests).transform(rig.pipeline()).collectList().block(Duration.ofSeconds(30));

        assertThat(results).hasSize(7);
        PrefillResult huge = results.stream().filter(r -> r.request().id().equals("huge")).findFirst().orElseThrow();
        assertThat(huge).isInstanceOfSatisfying(PrefillResult.Failed.class, f -> assertThat(f.error())
                .isInstanceOfSatisfying(AdmissionRejectedException.class, e -> {
                    assertThat(e.requestId()).isEqualTo("huge");
                    assertThat(e.neededTokens()).isEqualTo(496);
                    assertThat(e.capacityTokens()).isEqualTo(capacity);
                }));
        assertThat(results).filteredOn(r -> r instanceof PrefillResult.Completed).hasSize(6);
        assertNothingHeld(rig);
    }

    @Test
    void upstreamErrorArrivesAfterTheAdmittedRequestsFinish() {
        Workloads.Rig rig = Workloads.rig(CONFIG, PoolLayout.SHARED, 40, MODEL, true, QuerySampler.NONE, 400);
        IllegalStateException boom = new IllegalStateException("request source failed");
        StepVerifier.create(Flux.fromIterable(Workloads.requests(4, 5, 100, 40)).concatWith(Flux.error(boom)).transform(rig.pipeline()))
                .expectNextCount(5)
                .expectErrorMatches(e -> e == boom)
                .verify(Duration.ofSeconds(30));
        assertNothingHeld(rig);
    }

    @Test
    void upstreamIsAskedOnlyForWhatTheWaitingQueueHolds() {
        Workloads.Rig rig = Workloads.rig(CONFIG, PoolLayout.SHARED, 10, null, false, QuerySampler.NONE, 100);
        AtomicLong requestedFromSource = new AtomicLong();
        Flux<PrefillRequest> source = Flux.fromIterable(Workloads.requests(6, 1000, 60, 40))
                .doOnRequest(n -> requestedFromSource.addAndGet(Math.min(n, 1_000_000)));
        StepVerifier.create(source.transform(rig.pipeline()), 0)
                .thenRequest(1)
                .expectNextCount(1)
                .then(() -> assertThat(requestedFromSource.get()).isLessThanOrEqualTo(32 + 4))
                .thenCancel()
                .verify(Duration.ofSeconds(10));
    }

    @Test
    void hundredThousandRequestsThroughASmallPoolEachEndOnceWithBoundedMemory() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(8, 64, 8, 1024L);
        Workloads.Rig rig = Workloads.rig(config, PoolLayout.SHARED, 16, null, true, QuerySampler.NONE, 4096);
        long capacityPages = rig.group().capacityTokens() / 64;
        AtomicLong emitted = new AtomicLong();
        AtomicLong inSystemPeak = new AtomicLong();
        Set<String> finished = new HashSet<>();
        java.util.SplittableRandom random = new java.util.SplittableRandom(11);
        Flux<PrefillRequest> source = Flux.range(0, 100_000)
                .map(i -> new PrefillRequest("s" + i, tokens(random, 1 + random.nextInt(3000)), random.nextInt(100)))
                .doOnNext(r -> emitted.incrementAndGet());
        StepVerifier.create(source.transform(rig.pipeline()).doOnNext(result -> {
                    assertThat(finished.add(result.request().id())).isTrue();
                    inSystemPeak.accumulateAndGet(emitted.get() - finished.size(), Math::max);
                    // decode consumes each request at once, so its pool never fills
                    rig.receiver().release(result.request().id());
                }))
                .expectNextCount(100_000)
                .expectComplete()
                .verify(Duration.ofMinutes(3));
        assertThat(finished).hasSize(100_000);
        assertThat(inSystemPeak.get()).as("requests inside the pipeline at once").isLessThanOrEqualTo(32 + capacityPages);
        assertThat(rig.group().peakPhysicalPages()).isLessThanOrEqualTo(capacityPages);
        assertNothingHeld(rig);
    }

    @Test
    void twoHundredThousandTokenPromptsArePlannedWithoutBytes() {
        CpSharedKvConfig config = Workloads.sharedBsGt1(8, 64, 4, 8192L).toBuilder()
                .model(org.kvflow.core.model.ModelKind.NSA_MLA).build();
        Workloads.Rig rig = Workloads.rig(config, PoolLayout.SHARED, 1000, null, false, QuerySampler.NONE, 8000);
        java.util.SplittableRandom random = new java.util.SplittableRandom(2);
        List<PrefillRequest> requests = List.of(new PrefillRequest("long", tokens(random, 200_000), 0),
                new PrefillRequest("tail", tokens(random, 131_073), 0));
        List<PrefillResult> results = Flux.fromIterable(requests).transform(rig.pipeline()).collectList().block(Duration.ofMinutes(1));
        PrefillResult.Completed longOne = (PrefillResult.Completed) results.get(0);
        assertThat(longOne.pagesSent()).isEqualTo(3125);
        assertThat(longOne.batches()).isEqualTo(25); // ceil(200000 / 8192)
        assertThat(((PrefillResult.Completed) results.get(1)).pagesSent()).isEqualTo(2049);
        assertThat(rig.receiver().writtenPages("long")).isEqualTo(3125);
        assertThat(rig.receiver().isReady("tail")).isTrue();
        assertNothingHeld(rig);
    }

    private static int[] tokens(java.util.SplittableRandom random, int n) {
        int[] t = new int[n];
        for (int i = 0; i < n; i++) {
            t[i] = random.nextInt(32_000);
        }
        return t;
    }
}
