package org.kvflow.bench.soak;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.dsl.Admission;
import org.kvflow.dsl.KvFlow;
import org.kvflow.dsl.Materialize;
import org.kvflow.dsl.Ownership;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.PrefillRun;
import org.kvflow.dsl.RunPools;
import org.kvflow.dsl.Split;
import org.kvflow.dsl.Write;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.model.KvModel;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.DecodeUnreachableException;
import org.kvflow.transport.tcp.TcpTarget;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A soak through the public API: {@code pipelines} CP4 shared-KV pipelines run concurrently, in
 * runs of up to {@link #RUN} requests, over TCP to decode servers in this process, until
 * {@code requests} requests have been submitted. One pipeline carries KV bytes (a small synthetic
 * model) and checks every request decode received against a replicated in-memory run of the same
 * request (digests); the others plan pages only. A tenth of the runs are cancelled at a random
 * result; the decode consumer releases every request it is handed; every {@code restartEvery}
 * the decode servers are closed (their state gone, as a kill would leave it) and started again on
 * the same ports. At the end: requests by outcome, pages not returned to any pool, decode
 * sessions left, heap after GC at start and end, as one JSON document.
 *
 * <p>Usage: {@code Soak REQUESTS PIPELINES SEED RESTART_EVERY_MS}
 */
public final class Soak {
    /** Requests a run takes before its subscription ends (completes, or is cancelled earlier). */
    static final int RUN = 2_000;
    private static final int PS = 16;
    private static final SyntheticModel MODEL = new SyntheticModel(new NsaDims(16, 40, 8, 24, 8), KvDtype.FP8_E4M3, 1, 11);

    private final long requests;
    private final int pipelines;
    private final long seed;
    private final Duration restartEvery;
    private final AtomicLong claimed = new AtomicLong();
    private final AtomicLong submitted = new AtomicLong();
    private final Map<String, AtomicLong> outcomes = new ConcurrentHashMap<>();
    private final AtomicLong pagesNotReturned = new AtomicLong();
    private final AtomicLong wrongKv = new AtomicLong();
    private final AtomicLong kvChecked = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicReference<Throwable> crash = new AtomicReference<>();
    private final Decode pagesOnly = new Decode(KvModel.pagesOnly());
    private final Decode withBytes = new Decode(MODEL);

    /** A decode server in this process and what it serves into; restarted with a fresh receiver. */
    private static final class Decode {
        final KvModel model;
        final AtomicReference<DecodeReceiver> receiver = new AtomicReference<>();
        final AtomicReference<DecodeServer> server = new AtomicReference<>();
        int port;

        Decode(KvModel model) {
            this.model = model;
        }

        synchronized void start() {
            DecodeReceiver r = new DecodeReceiver(1 << 15, PS, model.storesBytes() ? model.layout() : null);
            DecodeServer s = DecodeServer.start(r, "127.0.0.1", port);
            port = s.port();
            receiver.set(r);
            server.set(s);
        }

        synchronized void restart() {
            server.get().close();
            start();
        }

        synchronized void stop() {
            server.get().close();
        }
    }

    Soak(long requests, int pipelines, long seed, Duration restartEvery) {
        this.requests = requests;
        this.pipelines = pipelines;
        this.seed = seed;
        this.restartEvery = restartEvery;
    }

    public static void main(String[] args) {
        Soak soak = new Soak(Long.parseLong(args[0]), Integer.parseInt(args[1]), Long.parseLong(args[2]), Duration.ofMillis(Long.parseLong(args[3])));
        System.out.println(soak.run().toJson());
    }

    /** What the soak found. */
    record Report(long requests, Map<String, Long> outcomes, long pagesNotReturned, long decodeSessionsLeft, double heapGrowthMb,
                  long failedWithTypedErrorDuringFaults, long completedAfterRestart, long wrongKv, long kvChecked, long restarts, double seconds) {
        String toJson() {
            StringBuilder o = new StringBuilder("{");
            outcomes.forEach((k, v) -> o.append(o.length() > 1 ? "," : "").append('"').append(k).append("\":").append(v));
            o.append('}');
            return String.format(Locale.ROOT, "{\"requests\":%d,\"outcomes\":%s,\"pages_not_returned\":%d,\"decode_sessions_left\":%d,"
                            + "\"heap_growth_mb\":%.1f,\"failed_with_typed_error_during_faults\":%d,\"completed_after_restart\":%d,\"wrong_kv\":%d,"
                            + "\"kv_checked\":%d,\"decode_restarts\":%d,\"seconds\":%.1f}", requests, o, pagesNotReturned, decodeSessionsLeft, heapGrowthMb,
                    failedWithTypedErrorDuringFaults, completedAfterRestart, wrongKv, kvChecked, restarts, seconds);
        }
    }

    Report run() {
        long start = System.nanoTime();
        pagesOnly.start();
        withBytes.start();
        double heapStart = heapAfterGc(); // the decode pools allocated: what grows after this is what the soak leaves behind
        AtomicLong typedFailures = new AtomicLong();
        AtomicLong afterRestart = new AtomicLong();
        java.util.concurrent.ScheduledExecutorService restarter = java.util.concurrent.Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "soak-decode-restarts"); // a plain thread: closing a server blocks, which Reactor's threads refuse
            t.setDaemon(true);
            return t;
        });
        restarter.scheduleAtFixedRate(() -> {
            try {
                pagesOnly.restart();
                withBytes.restart();
                restarts.incrementAndGet();
            } catch (RuntimeException e) {
                crash.compareAndSet(null, e);
            }
        }, restartEvery.toMillis(), restartEvery.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
        List<Thread> workers = new ArrayList<>();
        for (int p = 0; p < pipelines; p++) {
            int index = p;
            Thread t = new Thread(() -> {
                try {
                    pipelineLoop(index, typedFailures, afterRestart);
                } catch (RuntimeException | Error e) {
                    crash.compareAndSet(null, e); // the soak reports it and fails
                }
            }, "soak-" + p);
            workers.add(t);
            t.start();
        }
        for (Thread t : workers) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
        restarter.shutdownNow();
        Throwable crashed = crash.get();
        if (crashed != null) {
            throw new IllegalStateException("a soak pipeline stopped: " + crashed, crashed);
        }
        long left = pagesOnly.receiver.get().openSessions() + withBytes.receiver.get().openSessions();
        pagesOnly.stop();
        withBytes.stop();
        Map<String, Long> byOutcome = new LinkedHashMap<>();
        outcomes.forEach((k, v) -> byOutcome.put(k, v.get()));
        return new Report(submitted.get(), byOutcome, pagesNotReturned.get(), left, heapAfterGc() - heapStart, typedFailures.get(), afterRestart.get(),
                wrongKv.get(), kvChecked.get(), restarts.get(), (System.nanoTime() - start) / 1e9);
    }

    /** One pipeline's runs until the soak's requests are all submitted. */
    private void pipelineLoop(int index, AtomicLong typedFailures, AtomicLong afterRestart) {
        boolean bytes = index == 0;
        Decode decode = bytes ? withBytes : pagesOnly;
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(PS).model(ModelKind.TOY_MLA).kvDtype(KvDtype.FP8_E4M3)
                .sharedKv(true).bsGt1(true).chunkedPrefillSize(256L).transferBackend(TransferBackendKind.TCP).build();
        org.kvflow.dsl.PrefillFlow flow = KvFlow.prefill(config).model(decode.model).admit(Admission.batchGate().maxRequests(16)).split(Split.inSeq())
                .own(Ownership.byPageId().pagesPerRank(2048));
        PrefillPipeline pipeline = (bytes ? flow.write(Write.ownerRows()) : flow).materialize(Materialize.fullView())
                .transfer(PdTransfer.via(TcpTarget.of("127.0.0.1", decode.port).timeout(Duration.ofSeconds(5)))).build();
        Reference reference = bytes ? new Reference() : null;
        SplittableRandom random = new SplittableRandom(seed * 31 + index);
        while (true) {
            int size = bytes ? RUN / 10 : RUN;
            long first = claimed.getAndAdd(size);
            if (first >= requests) {
                return;
            }
            int n = (int) Math.min(size, requests - first);
            submitted.addAndGet(n);
            List<PrefillRequest> batch = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                int[] tokens = new int[1 + random.nextInt(bytes ? 80 : 400)];
                for (int t = 0; t < tokens.length; t++) {
                    tokens[t] = random.nextInt(32_000);
                }
                batch.add(new PrefillRequest("p" + index + "-" + (first + i), tokens, 8));
            }
            long restartsBefore = restarts.get();
            boolean cancel = random.nextInt(10) == 0;
            PrefillRun run = pipeline.start(Flux.fromIterable(batch));
            Flux<PrefillResult> results = run.results();
            if (cancel) {
                results = results.take(random.nextInt(n) + 1);
            }
            Map<PrefillRequest, Long> received = new LinkedHashMap<>();
            Long seen = results.doOnNext(r -> take(decode, r, received, typedFailures, afterRestart, restartsBefore)).count()
                    .onErrorResume(e -> {
                        count("run_failed_" + e.getClass().getSimpleName());
                        return Mono.just(0L);
                    }).block(Duration.ofMinutes(5));
            int delivered = seen == null ? 0 : seen.intValue();
            if (reference != null) {
                reference.check(received);
            }
            if (delivered < n) {
                count(cancel ? "cancelled_undelivered" : "undelivered");
                outcomes.computeIfAbsent("not_delivered", k -> new AtomicLong()).addAndGet(n - delivered);
            }
            RunPools pools = run.pools();
            if (pools != null) {
                pagesNotReturned.addAndGet(pools.physicalPagesInUse() - pools.cachedPages() + pools.leakCheck().size());
            }
        }
    }

    /**
     * What the decode consumer does with a result: counts it, notes the digest decode holds for it
     * (the bytes pipeline's, into {@code received}), and releases it on decode.
     */
    private void take(Decode decode, PrefillResult r, Map<PrefillRequest, Long> received, AtomicLong typedFailures, AtomicLong afterRestart,
                      long restartsBefore) {
        String id = r.request().id();
        if (r instanceof PrefillResult.Completed) {
            count("completed");
            if (restartsBefore > 0) {
                afterRestart.incrementAndGet();
            }
            DecodeReceiver receiver = decode.receiver.get();
            if (decode.model.storesBytes() && receiver.isReady(id)) {
                received.put(r.request(), receiver.digest(id, r.request().seqLen()));
            }
            receiver.release(id); // decode took it (a restart may have dropped it already: then a no-op)
        } else if (r instanceof PrefillResult.Failed f) {
            count("failed");
            if (f.error() instanceof DecodeUnreachableException || f.error() instanceof org.kvflow.decode.DecodeRefusal) {
                typedFailures.incrementAndGet();
            } else {
                count("failed_" + f.error().getClass().getSimpleName());
            }
        }
    }

    /** The digests decode should hold: the same requests through a replicated pipeline into a decode receiver in memory. */
    private final class Reference {
        private final DecodeReceiver local = new DecodeReceiver(1 << 14, PS, MODEL.layout());
        private final PrefillPipeline replicated = KvFlow.prefill(CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(PS)
                        .model(ModelKind.TOY_MLA).kvDtype(KvDtype.FP8_E4M3).chunkedPrefillSize(256L).build()).model(MODEL)
                .admit(Admission.batchGate()).split(Split.inSeq()).own(Ownership.replicated().pagesPerRank(2048)).write(Write.ownerRows())
                .materialize(Materialize.fullView()).transfer(PdTransfer.inMemory(local)).build();

        void check(Map<PrefillRequest, Long> received) {
            Flux.fromIterable(received.keySet()).transform(replicated).doOnNext(r -> {
                String id = r.request().id();
                kvChecked.incrementAndGet();
                if (!(r instanceof PrefillResult.Completed) || local.digest(id, r.request().seqLen()) != received.get(r.request())) {
                    wrongKv.incrementAndGet();
                }
                local.release(id);
            }).blockLast(Duration.ofMinutes(5));
        }
    }

    private void count(String outcome) {
        outcomes.computeIfAbsent(outcome, k -> new AtomicLong()).incrementAndGet();
    }

    private static double heapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        Runtime rt = Runtime.getRuntime();
        return (rt.totalMemory() - rt.freeMemory()) / (1024.0 * 1024.0);
    }
}
