package org.kvflow.operators.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.Workloads;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import org.kvflow.model.synthetic.SyntheticModel;

/**
 * The scenarios every stage passes on its own, shared as reactor-core's operator tests share
 * theirs: no batch before demand, cancellation reaching upstream, a request that fails in the
 * middle of a batch failing alone with its pages freed, and an upstream error passing through. A
 * subclass names the stage, the batch it takes and how to break the middle request for it.
 */
abstract class StageScenarios {
    static final SyntheticModel MODEL = Workloads.toyModel(KvDtype.BF16, 2);

    final KvGroup group = KvGroup.create(Workloads.sharedBsGt1(4, 4, 8, null), PoolLayout.SHARED, PoolCapacity.ofPages(32, 4), MODEL, false);
    final List<PrefillRequest> requests = List.of(new PrefillRequest("a", tokens(9, 1), 0), new PrefillRequest("b", tokens(11, 2), 0),
            new PrefillRequest("c", tokens(6, 3), 0));

    /** The stage under test, as the pipeline composes it. */
    abstract Function<Flux<PrefillBatch>, ? extends Publisher<?>> stage();

    /** The batch of {@link #requests} as the stage receives it: carried through every stage before it. */
    abstract PrefillBatch input();

    /** Breaks request {@code b} (entry 1) of {@code batch} for this stage; returns the batch to send. */
    abstract PrefillBatch breakMiddle(PrefillBatch batch);

    /** Checks the error the broken request failed with (its exact type and message). */
    abstract void assertMiddleFailure(Throwable error, PrefillBatch batch);

    /** Requests the break fails: {@code b} alone, unless the stage fails whole batches. */
    List<String> failedByBreak() {
        return List.of("b");
    }

    /** Batches the stage may ask for before any demand (a prefetch of one); zero for a synchronous stage. */
    long prefetch() {
        return 0;
    }

    @AfterEach
    void noPageLeaked() {
        assertThat(group.leakCheck()).isEmpty();
    }

    static int[] tokens(int n, int seed) {
        int[] t = new int[n];
        java.util.Arrays.setAll(t, i -> seed * 100 + i);
        return t;
    }

    @Test
    void nothingIsEmittedBeforeDemand() {
        TestPublisher<PrefillBatch> upstream = TestPublisher.create();
        PrefillBatch batch = input();
        StepVerifier.create(Flux.from(stage().apply(upstream.flux())), 0)
                .expectSubscription()
                .then(() -> upstream.assertMaxRequested(prefetch()))
                .expectNoEvent(Duration.ofMillis(20))
                .thenRequest(1)
                .then(() -> upstream.assertMinRequested(1).next(batch))
                .expectNextCount(1)
                .thenCancel()
                .verify(Duration.ofSeconds(10));
        group.releaseAll();
    }

    @Test
    void cancellationReachesUpstream() {
        TestPublisher<PrefillBatch> upstream = TestPublisher.create();
        PrefillBatch batch = input();
        StepVerifier.create(Flux.from(stage().apply(upstream.flux())))
                .then(() -> upstream.next(batch))
                .expectNextCount(1)
                .thenCancel()
                .verify(Duration.ofSeconds(10));
        upstream.assertCancelled();
        group.releaseAll();
    }

    @Test
    void aRequestBrokenInTheMiddleOfABatchFailsAloneAndItsPagesComeBack() {
        PrefillBatch batch = breakMiddle(input());
        List<Object> out = new ArrayList<>();
        StepVerifier.create(Flux.<Object>from(stage().apply(Flux.just(batch))))
                .thenConsumeWhile(x -> true, out::add)
                .verifyComplete();
        Map<String, @Nullable Throwable> failures = failures(out);
        for (PrefillRequest request : requests) {
            Throwable failure = failures.get(request.id());
            if (failedByBreak().contains(request.id())) {
                assertThat(failure).as("request %s", request.id()).isNotNull();
                assertMiddleFailure(failure, batch);
            } else {
                assertThat(failure).as("request %s", request.id()).isNull();
            }
        }
        for (PrefillBatch.Entry entry : batch.entries()) {
            assertThat(entry.state().isReleased()).as("request %s released", entry.id()).isEqualTo(failedByBreak().contains(entry.id())
                    || released(entry.state(), out));
        }
        group.releaseAll();
    }

    @Test
    void anUpstreamErrorPassesThrough() {
        StepVerifier.create(Flux.from(stage().apply(Flux.error(new IllegalStateException("upstream broke")))))
                .verifyErrorMessage("upstream broke");
    }

    /** Whether the stage itself released a request that did not fail (the transfer stage does, once a request completes). */
    boolean released(RequestState state, List<Object> out) {
        return false;
    }

    /** Each request's failure in the stage's output (batches or results), null when it did not fail. */
    static Map<String, @Nullable Throwable> failures(List<Object> out) {
        Map<String, @Nullable Throwable> failures = new LinkedHashMap<>();
        for (Object o : out) {
            if (o instanceof PrefillBatch b) {
                b.entries().forEach(e -> failures.put(e.id(), e.failure()));
            } else if (o instanceof PrefillResult.Failed f) {
                failures.put(f.request().id(), f.error());
            } else if (o instanceof PrefillResult r) {
                failures.put(r.request().id(), null);
            }
        }
        return failures;
    }

    /** {@code batch} with request {@code b}'s chunk (entry 1) replaced by one of {@code chunkLen} tokens from 0. */
    static PrefillBatch withMiddleChunk(PrefillBatch batch, long chunkLen) {
        PrefillBatch.Entry b = batch.entries().get(1);
        return batch.withEntries(List.of(batch.entries().get(0), new PrefillBatch.Entry(b.state(), 0, chunkLen, true), batch.entries().get(2)));
    }

    /** Admits {@link #requests} as one batch (pages reserved, none allocated yet). */
    PrefillBatch admitted() {
        return new Requests(group).admitted(0, requests);
    }

    /** Admits requests by hand: tracked, their pages reserved, one whole-request chunk each. */
    record Requests(KvGroup group) {
        PrefillBatch admitted(long batchId, List<PrefillRequest> requests) {
            List<PrefillBatch.Entry> entries = new ArrayList<>();
            for (PrefillRequest request : requests) {
                RequestState state = group.track(request);
                assertThat(group.reserve(state, request.seqLen())).isTrue();
                entries.add(new PrefillBatch.Entry(state, 0, request.seqLen(), true));
            }
            return PrefillBatch.admitted(batchId, entries);
        }

        /** Requests of 5 tokens named {@code ids}. */
        PrefillBatch admitted(long batchId, String... ids) {
            return admitted(batchId, java.util.Arrays.stream(ids).map(id -> new PrefillRequest(id, tokens(5, id.charAt(0)), 0)).toList());
        }
    }
}
