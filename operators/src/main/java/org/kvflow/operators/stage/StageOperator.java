package org.kvflow.operators.stage;

import java.util.Objects;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.kvflow.operators.group.PrefillBatch;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.core.publisher.Operators;
import reactor.util.context.Context;

/**
 * A synchronous stage as a Reactor operator: each batch goes through {@link StageRunner} on the
 * thread that delivers it, demand and cancellation pass straight through, and the stage's per-run
 * resources are made at subscription and closed at the first terminal signal or cancellation. An
 * exception thrown while handling a batch that is not a per-request failure (an {@link Error}, or a
 * failure of the runner itself) cancels upstream and goes downstream through
 * {@link Operators#onOperatorError}.
 */
public final class StageOperator extends FluxOperator<PrefillBatch, PrefillBatch> {
    private final StageRunner runner;
    private final Supplier<? extends BatchStage> stages;

    /**
     * Runs a stage over {@code source}.
     *
     * @param source the batches
     * @param runner runs the stage on each batch and releases the pages of requests that failed in it
     * @param stages makes one stage instance per subscription
     */
    public StageOperator(Flux<? extends PrefillBatch> source, StageRunner runner, Supplier<? extends BatchStage> stages) {
        super(source);
        this.runner = Objects.requireNonNull(runner, "runner");
        this.stages = Objects.requireNonNull(stages, "stages");
    }

    @Override
    public void subscribe(CoreSubscriber<? super PrefillBatch> actual) {
        BatchStage stage;
        try {
            stage = Objects.requireNonNull(stages.get(), "the stage factory returned null");
        } catch (Throwable e) {
            Operators.error(actual, Operators.onOperatorError(e, actual.currentContext()));
            return;
        }
        source.subscribe(new StageSubscriber(actual, runner, stage));
    }

    @Override
    public @Nullable Object scanUnsafe(Attr key) {
        if (key == Attr.NAME) {
            return runner.stageName();
        }
        if (key == Attr.RUN_STYLE) {
            return Attr.RunStyle.SYNC;
        }
        return super.scanUnsafe(key);
    }

    static final class StageSubscriber implements CoreSubscriber<PrefillBatch>, Subscription, Scannable {
        private final CoreSubscriber<? super PrefillBatch> actual;
        private final StageRunner runner;
        private final BatchStage stage;
        private @Nullable Subscription s;
        private boolean done;
        private boolean closed;

        StageSubscriber(CoreSubscriber<? super PrefillBatch> actual, StageRunner runner, BatchStage stage) {
            this.actual = actual;
            this.runner = runner;
            this.stage = stage;
        }

        @Override
        public Context currentContext() {
            return actual.currentContext();
        }

        @Override
        public void onSubscribe(Subscription subscription) {
            if (Operators.validate(s, subscription)) {
                s = subscription;
                actual.onSubscribe(this);
            }
        }

        @Override
        public void onNext(PrefillBatch batch) {
            if (done) {
                Operators.onNextDropped(batch, currentContext());
                return;
            }
            PrefillBatch next;
            try {
                next = runner.run(stage, batch);
            } catch (Throwable e) {
                onError(Operators.onOperatorError(s, e, batch, currentContext()));
                return;
            }
            actual.onNext(next);
        }

        @Override
        public void onError(Throwable t) {
            if (done) {
                Operators.onErrorDropped(t, currentContext());
                return;
            }
            done = true;
            closeStage();
            actual.onError(t);
        }

        @Override
        public void onComplete() {
            if (done) {
                return;
            }
            done = true;
            closeStage();
            actual.onComplete();
        }

        @Override
        public void request(long n) {
            Objects.requireNonNull(s).request(n);
        }

        @Override
        public void cancel() {
            Objects.requireNonNull(s).cancel();
            closeStage();
        }

        private synchronized void closeStage() {
            if (!closed) {
                closed = true;
                stage.close();
            }
        }

        @Override
        public @Nullable Object scanUnsafe(Attr key) {
            if (key == Attr.PARENT) {
                return s;
            }
            if (key == Attr.ACTUAL) {
                return actual;
            }
            if (key == Attr.TERMINATED) {
                return done;
            }
            if (key == Attr.RUN_STYLE) {
                return Attr.RunStyle.SYNC;
            }
            return null;
        }
    }
}
