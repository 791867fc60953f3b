package org.kvflow.operators.stage;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.Workloads;
import reactor.core.publisher.Flux;
import reactor.test.StepVerifier;
import reactor.test.publisher.TestPublisher;
import org.kvflow.model.KvModel;

/** The stage operator's own contract: what a throwing stage does to its batch and to the stream, and when the stage is closed. */
class StageOperatorTest {
    private final KvGroup group = KvGroup.create(Workloads.sharedBsGt1(2, 4, 8, null), PoolLayout.SHARED, PoolCapacity.ofPages(16, 4), KvModel.pagesOnly(), false);
    private final StageScenarios.Requests fixture = new StageScenarios.Requests(group);

    /** A stage that counts its closes and runs {@code body}. */
    private static final class Probe implements BatchStage {
        final AtomicInteger closes = new AtomicInteger();
        final java.util.function.UnaryOperator<PrefillBatch> body;

        Probe(java.util.function.UnaryOperator<PrefillBatch> body) {
            this.body = body;
        }

        @Override
        public PrefillBatch apply(PrefillBatch batch) {
            return body.apply(batch);
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void aRuntimeExceptionFailsTheBatchAndTheStreamGoesOn() {
        Probe probe = new Probe(batch -> {
            if (batch.batchId() == 0) {
                throw new IllegalStateException("view of batch 0 cannot be trusted");
            }
            return batch;
        });
        PrefillBatch first = fixture.admitted(0, "a", "b");
        PrefillBatch second = fixture.admitted(1, "c");
        StepVerifier.create(new StageOperator(Flux.just(first, second), new StageRunner(group, "probe"), () -> probe))
                .assertNext(b -> assertThat(b.entries()).allSatisfy(e -> assertThat(e.failure()).hasMessage("view of batch 0 cannot be trusted")))
                .assertNext(b -> assertThat(b.entries()).allSatisfy(e -> assertThat(e.failure()).isNull()))
                .verifyComplete();
        assertThat(first.entries()).allSatisfy(e -> assertThat(e.state().isReleased()).isTrue());
        assertThat(second.entries().getFirst().state().isReleased()).isFalse();
        assertThat(probe.closes).hasValue(1);
        group.releaseAll();
        assertThat(group.leakCheck()).isEmpty();
    }

    @Test
    void anErrorCancelsUpstreamAndTerminatesTheStreamThroughOnOperatorError() {
        Probe probe = new Probe(batch -> {
            throw new AssertionError("stage invariant broken in batch " + batch.batchId());
        });
        TestPublisher<PrefillBatch> upstream = TestPublisher.create();
        PrefillBatch batch = fixture.admitted(7, "a");
        StepVerifier.create(new StageOperator(upstream.flux(), new StageRunner(group, "probe"), () -> probe))
                .then(() -> upstream.next(batch))
                .verifyErrorSatisfies(e -> assertThat(e).isInstanceOf(AssertionError.class).hasMessage("stage invariant broken in batch 7"));
        upstream.assertCancelled();
        assertThat(probe.closes).hasValue(1);
        group.releaseAll();
    }

    @Test
    void eachSubscriptionGetsItsOwnStageAndClosesItOnCancel() {
        AtomicInteger made = new AtomicInteger();
        Probe probe = new Probe(b -> b);
        StageOperator operator = new StageOperator(Flux.<PrefillBatch>never(), new StageRunner(group, "probe"), () -> {
            made.incrementAndGet();
            return probe;
        });
        StepVerifier.create(operator).expectSubscription().thenCancel().verify(Duration.ofSeconds(5));
        StepVerifier.create(operator).expectSubscription().thenCancel().verify(Duration.ofSeconds(5));
        assertThat(made).hasValue(2);
        assertThat(probe.closes).hasValue(2);
    }

    @Test
    void aFactoryThatFailsIsAnErrorAtSubscription() {
        StepVerifier.create(new StageOperator(Flux.<PrefillBatch>never(), new StageRunner(group, "probe"), () -> {
            throw new IllegalStateException("no device for the stage");
        })).verifyErrorMessage("no device for the stage");
    }

    @Test
    void theOperatorAndItsSubscriberDescribeThemselvesToReactorsScan() {
        StageOperator operator = new StageOperator(Flux.<PrefillBatch>never(), new StageRunner(group, "kvflow.probe"), () -> new Probe(b -> b));
        assertThat(reactor.core.Scannable.from(operator).name()).isEqualTo("kvflow.probe");
        assertThat(reactor.core.Scannable.from(operator).scan(reactor.core.Scannable.Attr.RUN_STYLE)).isEqualTo(reactor.core.Scannable.Attr.RunStyle.SYNC);
        StepVerifier.create(operator)
                .expectSubscriptionMatches(s -> {
                    reactor.core.Scannable inner = reactor.core.Scannable.from(s);
                    return inner.scan(reactor.core.Scannable.Attr.ACTUAL) != null && inner.scan(reactor.core.Scannable.Attr.PARENT) != null
                            && Boolean.FALSE.equals(inner.scan(reactor.core.Scannable.Attr.TERMINATED))
                            && inner.scan(reactor.core.Scannable.Attr.RUN_STYLE) == reactor.core.Scannable.Attr.RunStyle.SYNC;
                })
                .thenCancel()
                .verify(Duration.ofSeconds(5));
    }
}
