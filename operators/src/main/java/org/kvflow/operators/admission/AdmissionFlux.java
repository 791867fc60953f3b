package org.kvflow.operators.admission;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicIntegerFieldUpdater;
import java.util.concurrent.atomic.AtomicLongFieldUpdater;
import org.jspecify.annotations.Nullable;
import org.kvflow.operators.AdmissionRejectedException;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.group.RequestState;
import org.reactivestreams.Subscription;
import reactor.core.CoreSubscriber;
import reactor.core.Disposable;
import reactor.core.Scannable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.FluxOperator;
import reactor.core.publisher.Operators;
import reactor.core.scheduler.Schedulers;

/**
 * The credit gate behind {@link AdmissionOperator}: composition cannot express "emit when the
 * pools have room, wait for freed pages otherwise", so this is a hand-written operator with a
 * serialized drain loop. Signals from upstream, downstream demand and page releases all enter
 * {@link AdmissionSubscriber#drain()}; only the thread that wins the work-in-progress counter runs it.
 */
final class AdmissionFlux extends FluxOperator<PrefillRequest, PrefillBatch> {
    /** The longest admission holds new work for a lost rank being started again (a restart takes a few seconds). */
    static final Duration RESTART_HOLD = Duration.ofSeconds(30);

    private final KvGroup group;
    private final PrefillAdder adder;
    private final int queueCapacity;

    AdmissionFlux(Flux<? extends PrefillRequest> source, KvGroup group, PrefillAdder adder, int queueCapacity) {
        super(source);
        this.group = group;
        this.adder = adder;
        this.queueCapacity = queueCapacity;
    }

    @Override
    public void subscribe(CoreSubscriber<? super PrefillBatch> actual) {
        source.subscribe(new AdmissionSubscriber(actual, group, adder, queueCapacity));
    }

    static final class AdmissionSubscriber implements CoreSubscriber<PrefillRequest>, Subscription, Scannable {
        private final CoreSubscriber<? super PrefillBatch> actual;
        private final KvGroup group;
        private final PrefillAdder adder;
        private final int queueCapacity;
        private final Queue<PrefillRequest> inbox = new ConcurrentLinkedQueue<>();
        // touched only inside drain()
        private final ArrayDeque<RequestState> waiting = new ArrayDeque<>();
        private final ArrayDeque<PrefillBatch> outbox = new ArrayDeque<>();
        private @Nullable RequestState chunked;
        private long outstanding;
        private long nextBatchId;

        private @Nullable Subscription s;
        private @Nullable Runnable unregister;
        /** When admission began holding work for a restarting rank (0: it is not), and the wake-up at the end of the hold. */
        private long holdingSince;
        private @Nullable Disposable holdEnd;
        private volatile boolean done;
        private @Nullable Throwable error;
        private volatile boolean cancelled;

        private volatile long requested;
        @SuppressWarnings("rawtypes")
        private static final AtomicLongFieldUpdater<AdmissionSubscriber> REQUESTED =
                AtomicLongFieldUpdater.newUpdater(AdmissionSubscriber.class, "requested");
        private volatile int wip;
        private static final AtomicIntegerFieldUpdater<AdmissionSubscriber> WIP =
                AtomicIntegerFieldUpdater.newUpdater(AdmissionSubscriber.class, "wip");

        AdmissionSubscriber(CoreSubscriber<? super PrefillBatch> actual, KvGroup group, PrefillAdder adder, int queueCapacity) {
            this.actual = actual;
            this.group = group;
            this.adder = adder;
            this.queueCapacity = queueCapacity;
        }

        @Override
        public void onSubscribe(Subscription s) {
            if (Operators.validate(this.s, s)) {
                this.s = s;
                this.unregister = group.onPagesFreed(this::drain);
                actual.onSubscribe(this);
            }
        }

        @Override
        public void onNext(PrefillRequest request) {
            if (done) {
                Operators.onNextDropped(request, actual.currentContext());
                return;
            }
            inbox.offer(request);
            drain();
        }

        @Override
        public void onError(Throwable t) {
            if (done) {
                Operators.onErrorDropped(t, actual.currentContext());
                return;
            }
            error = t;
            done = true;
            drain();
        }

        @Override
        public void onComplete() {
            if (done) {
                return;
            }
            done = true;
            drain();
        }

        @Override
        public void request(long n) {
            if (Operators.validate(n)) {
                Operators.addCap(REQUESTED, this, n);
                drain();
            }
        }

        @Override
        public void cancel() {
            if (cancelled) {
                return;
            }
            cancelled = true;
            if (s != null) {
                s.cancel();
            }
            if (WIP.getAndIncrement(this) == 0) {
                clear();
            }
        }

        void drain() {
            if (WIP.getAndIncrement(this) != 0) {
                return;
            }
            int missed = 1;
            for (;;) {
                if (cancelled) {
                    clear();
                    return;
                }
                PrefillRequest incoming;
                while ((incoming = inbox.poll()) != null) {
                    outstanding--;
                    intake(incoming);
                }
                long demand = requested;
                long emitted = 0;
                while (emitted != demand) {
                    PrefillBatch batch = outbox.poll();
                    if (batch == null) {
                        batch = tryAdmit();
                    }
                    if (batch == null) {
                        break;
                    }
                    actual.onNext(batch);
                    emitted++;
                    if (cancelled) {
                        clear();
                        return;
                    }
                }
                if (emitted != 0) {
                    Operators.produced(REQUESTED, this, emitted);
                }
                if (done && inbox.isEmpty() && waiting.isEmpty() && outbox.isEmpty() && chunked == null) {
                    finish();
                    return;
                }
                pullUpstream();
                missed = WIP.addAndGet(this, -missed);
                if (missed == 0) {
                    return;
                }
            }
        }

        /** Ask upstream for more only while downstream wants batches and the pools are not already full with a waiting head. */
        private void pullUpstream() {
            Subscription upstream = s;
            if (done || upstream == null || requested == 0) {
                return;
            }
            long room = queueCapacity - waiting.size() - outstanding;
            boolean poolsFull = !waiting.isEmpty() && group.budgetTokens() <= 0;
            if (room > 0 && !poolsFull) {
                outstanding += room;
                upstream.request(room);
            }
        }

        private void intake(PrefillRequest request) {
            long needed = request.seqLen() + Math.min(request.maxNew(), PrefillAdder.CLIP_MAX_NEW_TOKENS);
            long capacity = group.capacityTokens();
            if (needed >= capacity) {
                AdmissionRejectedException rejected = new AdmissionRejectedException(request.id(), needed, capacity);
                outbox.add(PrefillBatch.rejection(nextBatchId++, new PrefillResult.Failed(request, rejected)));
            } else {
                waiting.add(group.track(request));
            }
        }

        /** One PrefillAdder pass over the chunked request and the waiting queue; null when nothing fits now. */
        private @Nullable PrefillBatch tryAdmit() {
            if (chunked != null && chunked.isReleased()) {
                chunked = null; // failed or cancelled downstream: no further chunks
            }
            if (chunked == null && waiting.isEmpty()) {
                return null;
            }
            if (holdingForRestart()) {
                return null;
            }
            List<PrefillBatch.Entry> entries = group.withAccountingHeld(this::formEntries);
            if (entries.isEmpty()) {
                return null;
            }
            for (PrefillBatch.Entry entry : entries) {
                if (entry.state() == chunked) {
                    chunked = null;
                } else {
                    waiting.poll();
                }
                if (!entry.lastChunk()) {
                    chunked = entry.state();
                }
            }
            return PrefillBatch.admitted(nextBatchId++, entries);
        }

        /** The chunks one PrefillAdder pass admits now, their pages reserved; run with the group's accounting held still. */
        private List<PrefillBatch.Entry> formEntries() {
            List<PrefillBatch.Entry> formed = new ArrayList<>();
            AdmissionCandidate inFlight = chunked == null ? null : candidate(chunked, chunked.remainingTokens());
            List<AdmissionCandidate> queue = new ArrayList<>(waiting.size());
            List<Long> hostHits = new ArrayList<>(waiting.size());
            for (RequestState state : waiting) {
                long host = group.hostHitTokens(state);
                hostHits.add(host >= PrefillAdder.LOAD_BACK_THRESHOLD ? host : 0L);
                queue.add(new AdmissionCandidate(state.id(), state.request().seqLen() - group.prefixMatchTokens(state), host,
                        state.request().maxNew()));
            }
            long budget = group.budgetTokens();
            AdmissionPass pass = adder.pass(budget, budget, inFlight, queue);
            Iterator<RequestState> order = waiting.iterator();
            Iterator<Long> hostOrder = hostHits.iterator();
            RequestState pendingChunked = chunked;
            for (AdmissionPass.Admitted admitted : pass.admitted()) {
                boolean fresh = pendingChunked == null;
                RequestState state = fresh ? order.next() : pendingChunked;
                long host = fresh ? hostOrder.next() : 0;
                pendingChunked = null;
                long start = fresh ? group.prefixMatchTokens(state) + host : state.request().seqLen() - state.remainingTokens();
                if (!group.reserve(state, host, admitted.extendLen())) {
                    break;
                }
                formed.add(new PrefillBatch.Entry(state, start, admitted.extendLen(), state.remainingTokens() == 0));
            }
            return formed;
        }

        private static AdmissionCandidate candidate(RequestState state, long extendLen) {
            return new AdmissionCandidate(state.id(), extendLen, 0, state.request().maxNew());
        }

        private void finish() {
            unregisterListener();
            Throwable e = error;
            if (e != null) {
                actual.onError(e);
            } else {
                actual.onComplete();
            }
        }

        /** Cancelled: requests that were never emitted hold nothing but their tracking; release them. */
        private void clear() {
            unregisterListener();
            inbox.clear();
            outbox.clear();
            for (RequestState state : waiting) {
                group.release(state, false);
            }
            waiting.clear();
            RequestState inFlight = chunked;
            chunked = null;
            if (inFlight != null) {
                group.release(inFlight, false);
            }
        }

        /**
         * Whether to hold new work while a lost rank is started again: work admitted now would
         * only fail on the lost pool. The restart's end wakes admission; past {@link #RESTART_HOLD}
         * it admits anyway, and what the rank cannot serve fails fast.
         */
        private boolean holdingForRestart() {
            if (!group.rankRestarting()) {
                holdingSince = 0;
                endHold();
                return false;
            }
            long now = System.nanoTime();
            if (holdingSince == 0) {
                holdingSince = now;
                holdEnd = Schedulers.parallel().schedule(this::drain, RESTART_HOLD.toMillis(), TimeUnit.MILLISECONDS);
            }
            return now - holdingSince < RESTART_HOLD.toNanos();
        }

        private void unregisterListener() {
            Runnable r = unregister;
            unregister = null;
            if (r != null) {
                r.run();
            }
            endHold();
        }

        /** Cancels the wake-up at the end of a hold that is over. */
        private void endHold() {
            Disposable hold = holdEnd;
            holdEnd = null;
            if (hold != null) {
                hold.dispose();
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
            if (key == Attr.REQUESTED_FROM_DOWNSTREAM) {
                return requested;
            }
            if (key == Attr.TERMINATED) {
                return done && waiting.isEmpty() && chunked == null;
            }
            if (key == Attr.CANCELLED) {
                return cancelled;
            }
            if (key == Attr.BUFFERED) {
                return waiting.size() + inbox.size();
            }
            if (key == Attr.ERROR) {
                return error;
            }
            if (key == Attr.RUN_STYLE) {
                return Attr.RunStyle.SYNC;
            }
            return null;
        }
    }
}
