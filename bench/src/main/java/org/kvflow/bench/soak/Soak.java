package org.kvflow.bench.soak;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.config.TransferBackendKind;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.ModelKind;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.dsl.Admission;
import org.kvflow.dsl.HiCacheBackup;
import org.kvflow.dsl.KvFlow;
import org.kvflow.dsl.Materialize;
import org.kvflow.dsl.OwnSpec;
import org.kvflow.dsl.Ownership;
import org.kvflow.dsl.PdTransfer;
import org.kvflow.dsl.PrefillFlow;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.PrefillRun;
import org.kvflow.dsl.RunPools;
import org.kvflow.dsl.Split;
import org.kvflow.dsl.Write;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.model.KvModel;
import org.kvflow.model.synthetic.SyntheticModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.ranks.RankLostException;
import org.kvflow.ranks.RankProcessMain;
import org.kvflow.transport.tcp.DecodeServer;
import org.kvflow.transport.tcp.DecodeUnreachableException;
import org.kvflow.transport.tcp.RestartablePort;
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
 * the same ports. Two more faults when asked ({@link Faults}): the KV pipeline backs every
 * request up to a HiCache journal in a directory (on a small file system, it fills: backups are
 * refused and counted, requests go on), and a second pipeline, carrying and checking KV bytes too,
 * keeps its pools in rank processes, one of which is killed at each restart (its requests fail
 * typed, the rank is started again; only a run that serves is hit, not one whose ranks start). At
 * the end: requests by outcome, pages not returned to any pool, decode sessions left, heap after
 * GC at start and end, ranks killed and restarted, the journal's pages, refusals and a replay of
 * it, as one JSON document.
 *
 * <p>Usage: {@code Soak REQUESTS PIPELINES SEED RESTART_EVERY_MS [--journal DIR] [--kill-ranks]}
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
    /** The first message of each kind of error the faults do not explain. */
    private final Map<String, String> firstMessages = new ConcurrentHashMap<>();
    private final AtomicLong pagesNotReturned = new AtomicLong();
    private final AtomicLong wrongKv = new AtomicLong();
    private final AtomicLong kvChecked = new AtomicLong();
    private final AtomicLong restarts = new AtomicLong();
    private final AtomicReference<Throwable> crash = new AtomicReference<>();
    private final Faults faults;
    private final AtomicLong rankKills = new AtomicLong();
    /** Whether the rank pipeline's run has delivered a result and not ended: its ranks are up, so a kill is a loss, not a failed start. */
    private final AtomicBoolean rankRunServing = new AtomicBoolean();
    private final AtomicLong journalPages = new AtomicLong();
    private final AtomicLong journalRefused = new AtomicLong();
    private final SimpleMeterRegistry rankMeters = new SimpleMeterRegistry();
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
            if (port == 0) {
                port = RestartablePort.free("127.0.0.1"); // an ephemeral port may be taken by a client between a close and the restart
            }
            DecodeReceiver r = new DecodeReceiver(1 << 15, PS, model.storesBytes() ? model.layout() : null);
            DecodeServer s = DecodeServer.start(r, "127.0.0.1", port);
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

    /**
     * The faults beyond decode restarts and cancels.
     *
     * @param journal   where the KV pipeline journals its backups (a small file system makes it fill), or null for no backups
     * @param killRanks whether the second pipeline's pools live in rank processes, one killed at each restart
     */
    record Faults(@Nullable Path journal, boolean killRanks) {
        static final Faults NONE = new Faults(null, false);

        static Faults parse(List<String> flags) {
            Path journal = null;
            boolean kill = false;
            for (int i = 0; i < flags.size(); i++) {
                switch (flags.get(i)) {
                    case "--journal" -> {
                        if (i + 1 == flags.size()) {
                            throw new IllegalArgumentException("--journal needs a directory");
                        }
                        journal = Path.of(flags.get(++i));
                    }
                    case "--kill-ranks" -> kill = true;
                    default -> throw new IllegalArgumentException("unknown soak flag '" + flags.get(i) + "': --journal DIR, --kill-ranks");
                }
            }
            return new Faults(journal, kill);
        }
    }

    Soak(long requests, int pipelines, long seed, Duration restartEvery, Faults faults) {
        if (faults.killRanks() && pipelines < 2) {
            throw new IllegalArgumentException("--kill-ranks needs a second pipeline: pipelines=" + pipelines);
        }
        this.requests = requests;
        this.pipelines = pipelines;
        this.seed = seed;
        this.restartEvery = restartEvery;
        this.faults = faults;
    }

    public static void main(String[] args) {
        Soak soak = new Soak(Long.parseLong(args[0]), Integer.parseInt(args[1]), Long.parseLong(args[2]), Duration.ofMillis(Long.parseLong(args[3])),
                Faults.parse(List.of(args).subList(4, args.length)));
        System.out.println(soak.run().toJson());
    }

    /** What the soak found. */
    record Report(long requests, Map<String, Long> outcomes, Map<String, String> unexplained, long pagesNotReturned, long decodeSessionsLeft,
                  double heapGrowthMb, long failedWithTypedErrorDuringFaults, long completedAfterRestart, long wrongKv, long kvChecked, long restarts,
                  RankFaults ranks, JournalFill journal, double seconds) {
        String toJson() {
            Map<String, Object> o = new LinkedHashMap<>();
            o.put("requests", requests);
            o.put("outcomes", outcomes);
            o.put("unexplained_errors", unexplained);
            o.put("pages_not_returned", pagesNotReturned);
            o.put("decode_sessions_left", decodeSessionsLeft);
            o.put("heap_growth_mb", Math.round(heapGrowthMb * 10) / 10.0);
            o.put("failed_with_typed_error_during_faults", failedWithTypedErrorDuringFaults);
            o.put("completed_after_restart", completedAfterRestart);
            o.put("wrong_kv", wrongKv);
            o.put("kv_checked", kvChecked);
            o.put("decode_restarts", restarts);
            o.put("rank_kills", ranks.kills());
            o.put("ranks_lost", ranks.lost());
            o.put("ranks_restarted", ranks.restarted());
            o.put("journal_pages", journal.pages());
            o.put("journal_refused", journal.refused());
            o.put("journal_replayed", journal.replayed());
            o.put("journal_damaged", journal.damaged());
            o.put("seconds", Math.round(seconds * 10) / 10.0);
            try {
                return new ObjectMapper().writeValueAsString(o);
            } catch (JsonProcessingException e) {
                throw new IllegalStateException("the soak's report does not serialize", e);
            }
        }
    }

    /** Rank processes the soak killed, and those the pipelines counted lost and started again ({@code kvflow.ranks.*}). */
    record RankFaults(long kills, long lost, long restarted) {}

    /**
     * The journal's side: pages it took, requests whose backup it refused (the runs' gauges), and a
     * replay of it after the soak: records applied, records refused or files damaged.
     */
    record JournalFill(long pages, long refused, long replayed, long damaged) {}

    Report run() {
        long start = System.nanoTime();
        pagesOnly.start();
        withBytes.start();
        double heapStart = heapAfterGc(); // the decode pools allocated: what grows after this is what the soak leaves behind
        AtomicLong typedFailures = new AtomicLong();
        AtomicLong afterRestart = new AtomicLong();
        ScheduledExecutorService restarter = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "soak-decode-restarts"); // a plain thread: closing a server blocks, which Reactor's threads refuse
            t.setDaemon(true);
            return t;
        });
        SplittableRandom victims = new SplittableRandom(seed);
        restarter.scheduleAtFixedRate(() -> {
            try {
                pagesOnly.restart();
                withBytes.restart();
                restarts.incrementAndGet();
                if (faults.killRanks()) {
                    killOneRank(victims);
                }
            } catch (RuntimeException e) {
                crash.compareAndSet(null, e);
            }
        }, restartEvery.toMillis(), restartEvery.toMillis(), TimeUnit.MILLISECONDS);
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
        stopRestarts(restarter);
        Throwable crashed = crash.get();
        if (crashed != null) {
            throw new IllegalStateException("a soak pipeline stopped: " + crashed, crashed);
        }
        long left = pagesOnly.receiver.get().openSessions() + withBytes.receiver.get().openSessions();
        pagesOnly.stop();
        withBytes.stop();
        Map<String, Long> byOutcome = new LinkedHashMap<>();
        outcomes.forEach((k, v) -> byOutcome.put(k, v.get()));
        RankFaults ranks = new RankFaults(rankKills.get(), rankCount("kvflow.ranks.lost"), rankCount("kvflow.ranks.restarted"));
        return new Report(submitted.get(), byOutcome, Map.copyOf(firstMessages), pagesNotReturned.get(), left, heapAfterGc() - heapStart, typedFailures.get(), afterRestart.get(),
                wrongKv.get(), kvChecked.get(), restarts.get(), ranks, journalFill(), (System.nanoTime() - start) / 1e9);
    }

    /**
     * Lets a restart under way finish and starts no more. Interrupting one instead would fail the
     * decode server's close it is blocked in, and the soak would report that as a crash.
     */
    private static void stopRestarts(ScheduledExecutorService restarter) {
        restarter.shutdown();
        try {
            if (!restarter.awaitTermination(1, TimeUnit.MINUTES)) {
                throw new IllegalStateException("a decode restart did not finish within a minute");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Kills one rank process of the rank pipeline's run while that run serves (between runs, and while they start, none is killed). */
    private void killOneRank(SplittableRandom victims) {
        if (!rankRunServing.get()) {
            return;
        }
        List<ProcessHandle> live = ProcessHandle.current().children().filter(Soak::isRankProcess).toList();
        if (!live.isEmpty() && live.get(victims.nextInt(live.size())).destroyForcibly()) {
            rankKills.incrementAndGet();
        }
    }

    /** Whether {@code p} runs a rank's pool (its command line names the rank main class; the JDK's view of it drops long ones). */
    private static boolean isRankProcess(ProcessHandle p) {
        try {
            return p.isAlive() && new String(Files.readAllBytes(Path.of("/proc", Long.toString(p.pid()), "cmdline")), StandardCharsets.UTF_8)
                    .contains(RankProcessMain.class.getName());
        } catch (IOException e) {
            return false; // it ended meanwhile
        }
    }

    private long rankCount(String counter) {
        return (long) rankMeters.find(counter).counters().stream().mapToDouble(Counter::count).sum();
    }

    private JournalFill journalFill() {
        if (faults.journal() == null) {
            return new JournalFill(0, 0, 0, 0);
        }
        ReplayReport replay = JournalReplayer.replay(faults.journal(), ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP, new HostPageCache(1L << 30),
                (record, bytes) -> { });
        return new JournalFill(journalPages.get(), journalRefused.get(), replay.applied(), replay.rejected().size() + replay.damage().size());
    }

    /** One pipeline's runs until the soak's requests are all submitted. */
    private void pipelineLoop(int index, AtomicLong typedFailures, AtomicLong afterRestart) {
        boolean inRanks = index == 1 && faults.killRanks();
        boolean bytes = index == 0 || inRanks; // rank processes hold KV bytes
        boolean journaled = index == 0 && faults.journal() != null;
        Decode decode = bytes ? withBytes : pagesOnly;
        CpSharedKvConfig config = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(4).pageSize(PS).model(ModelKind.TOY_MLA).kvDtype(KvDtype.FP8_E4M3)
                .sharedKv(true).bsGt1(true).chunkedPrefillSize(256L).transferBackend(TransferBackendKind.TCP)
                .hicache(HiCacheConfig.builder().enabled(journaled).writePolicy(WritePolicy.WRITE_THROUGH).build()).build();
        OwnSpec own = Ownership.byPageId().pagesPerRank(2048);
        SimpleMeterRegistry meters = inRanks ? rankMeters : new SimpleMeterRegistry();
        PrefillFlow flow = KvFlow.prefill(config).model(decode.model).admit(Admission.batchGate().maxRequests(16)).split(Split.inSeq())
                .own(inRanks ? own.inRankProcesses() : own);
        flow = (bytes ? flow.write(Write.ownerRows()) : flow).materialize(Materialize.fullView());
        PrefillPipeline pipeline = (journaled ? flow.backup(HiCacheBackup.journal(faults.journal())) : flow)
                .transfer(PdTransfer.via(TcpTarget.of("127.0.0.1", decode.port).timeout(Duration.ofSeconds(5)))).metrics(meters).build();
        Reference reference = bytes ? new Reference() : null;
        SplittableRandom random = new SplittableRandom(seed * 31 + index);
        while (true) {
            int size = bytes && !inRanks ? RUN / 10 : RUN; // a rank run long enough to see a killed rank come back
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
            if (inRanks) {
                results = results.doOnNext(r -> rankRunServing.set(true)).doFinally(s -> rankRunServing.set(false));
            }
            Long seen = results.doOnNext(r -> take(decode, r, received, typedFailures, afterRestart, restartsBefore)).count()
                    .onErrorResume(e -> {
                        unexpected("run_failed_", e);
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
            if (journaled) { // the run's journal gauges, before the next run replaces them
                journalPages.addAndGet((long) meters.get("kvflow.journal.pages").gauge().value());
                journalRefused.addAndGet((long) meters.get("kvflow.journal.refused").gauge().value());
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
            if (f.error() instanceof DecodeUnreachableException || f.error() instanceof org.kvflow.decode.DecodeRefusal
                    || f.error() instanceof RankLostException) {
                typedFailures.incrementAndGet();
            } else {
                unexpected("failed_", f.error());
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

    /** Counts an error the faults do not explain, by kind, and keeps the first message of each kind for the report. */
    private void unexpected(String prefix, Throwable error) {
        String kind = prefix + error.getClass().getSimpleName();
        count(kind);
        firstMessages.putIfAbsent(kind, String.valueOf(error.getMessage()));
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
