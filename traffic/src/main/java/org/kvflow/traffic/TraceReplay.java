package org.kvflow.traffic;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.HiCacheConfig;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.core.model.ModelKind;
import org.kvflow.dsl.Admission;
import org.kvflow.dsl.HiCacheBackup;
import org.kvflow.dsl.KvFlow;
import org.kvflow.dsl.Materialize;
import org.kvflow.dsl.OwnSpec;
import org.kvflow.dsl.Ownership;
import org.kvflow.dsl.PrefillFlow;
import org.kvflow.dsl.PrefillPipeline;
import org.kvflow.dsl.PrefillRun;
import org.kvflow.dsl.RunPools;
import org.kvflow.dsl.Split;
import org.kvflow.dsl.Write;
import org.kvflow.model.KvModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * A trace replayed through prefill pipelines planning pages only (no KV bytes, so a whole trace runs
 * on a laptop), or, given {@link KvBytes}, computing and storing a model's KV rows on a device, as
 * fast as the pipeline takes it: shared KV and the replicated baseline, each on a
 * fresh pipeline with the same per-rank pool and the device prefix cache on, and optionally a host
 * tier behind it. Each request's prompt comes from its hash ids ({@link TraceTokens}), so the caches
 * see the trace's reuse.
 *
 * @param cp           CP size
 * @param pageSize     tokens per page
 * @param pagesPerRank pool pages on each rank
 * @param maxBatch     requests admitted together (a request hits only prefixes of requests finished before its batch)
 * @param hostPages    pages of the instance's host tier, which takes what the device cache evicts ({@code OwnSpec.hostTier}), or 0 for none
 * @param bytes        the model and device that make real KV bytes, or null to plan pages only
 * @param restart      a restart part-way through the trace, or null for one run throughout
 */
public record TraceReplay(int cp, int pageSize, int pagesPerRank, int maxBatch, int hostPages, @Nullable KvBytes bytes, @Nullable Restart restart) {
    /** A paced request the pipeline took this much later than its arrival counts as queued (seconds). */
    static final double QUEUED = 1e-3;

    /** Requests admitted together unless said otherwise. */
    public static final int BATCH = 16;

    /**
     * A replay admitting {@link #BATCH} requests together.
     *
     * @param cp           CP size
     * @param pageSize     tokens per page
     * @param pagesPerRank pool pages on each rank
     */
    public TraceReplay(int cp, int pageSize, int pagesPerRank) {
        this(cp, pageSize, pagesPerRank, BATCH, 0, null, null);
    }

    /**
     * A replay with no host tier.
     *
     * @param cp           CP size
     * @param pageSize     tokens per page
     * @param pagesPerRank pool pages on each rank
     * @param maxBatch     requests admitted together
     */
    public TraceReplay(int cp, int pageSize, int pagesPerRank, int maxBatch) {
        this(cp, pageSize, pagesPerRank, maxBatch, 0, null, null);
    }

    /**
     * A replay planning pages only.
     *
     * @param cp           CP size
     * @param pageSize     tokens per page
     * @param pagesPerRank pool pages on each rank
     * @param maxBatch     requests admitted together
     * @param hostPages    pages of the host tier, or 0 for none
     */
    public TraceReplay(int cp, int pageSize, int pagesPerRank, int maxBatch, int hostPages) {
        this(cp, pageSize, pagesPerRank, maxBatch, hostPages, null, null);
    }

    /**
     * Real KV bytes for a replay: the model whose rows the write stage computes and stores, and the
     * device its kernels and pools run on ({@code java}, {@code cuda[:n]}, {@code opencl[:n]}, {@code auto}).
     *
     * @param model  the model
     * @param device the device
     */
    public record KvBytes(KvModel model, String device) {
        /** Checks that both are given. */
        public KvBytes {
            Objects.requireNonNull(model, "model");
            Objects.requireNonNull(device, "device");
        }
    }

    /**
     * The same replay moving real KV bytes.
     *
     * @param kv the model and device
     * @return the replay
     * @throws IllegalArgumentException if this replay has a host tier (it plans pages only)
     */
    public TraceReplay withBytes(KvBytes kv) {
        return new TraceReplay(cp, pageSize, pagesPerRank, maxBatch, hostPages, Objects.requireNonNull(kv, "kv"), restart);
    }

    /**
     * The instance restarts after the trace's first {@code after} requests: its pipeline stops (the
     * device cache is lost) and a new one serves the rest. With a journal, the first run backs its
     * pages up into a HiCache journal under {@code journal} (a directory per layout) and the second
     * starts warm from it with the prompts the first run served: the journal as a tier.
     *
     * @param after   requests served before the restart
     * @param journal where the first run journals, or null for a cold restart
     * @return the replay
     */
    public TraceReplay restartAfter(int after, @Nullable Path journal) {
        return new TraceReplay(cp, pageSize, pagesPerRank, maxBatch, hostPages, bytes, new Restart(after, journal));
    }

    /**
     * A restart part-way through the trace.
     *
     * @param after   requests served before it (at least 1)
     * @param journal the directory the first run journals into and the second starts from, or null for a cold restart
     */
    public record Restart(int after, @Nullable Path journal) {
        /** Checks the count. */
        public Restart {
            if (after < 1) {
                throw new IllegalArgumentException("a restart after " + after + " requests (at least 1)");
            }
        }
    }

    /**
     * Checks the sizes.
     *
     * @throws IllegalArgumentException naming a size below 1, or host pages below 0
     */
    public TraceReplay {
        if (cp < 1 || pageSize < 1 || pagesPerRank < 1 || maxBatch < 1) {
            throw new IllegalArgumentException("cp " + cp + ", page size " + pageSize + ", pages per rank " + pagesPerRank + " and batch " + maxBatch
                    + " must all be >= 1");
        }
        if (hostPages < 0) {
            throw new IllegalArgumentException("host tier pages " + hostPages + " must be >= 0");
        }
        if (bytes != null && hostPages > 0) {
            throw new IllegalArgumentException("a host tier of " + hostPages + " pages plans pages only: a replay with KV bytes has none");
        }
        if (restart != null && restart.journal() != null && bytes == null) {
            throw new IllegalArgumentException("a journal holds KV bytes: a replay that journals needs a model (withBytes)");
        }
    }

    /**
     * Replays {@code trace} with one layout, as fast as the pipeline takes it.
     *
     * @param trace  the requests, in arrival order
     * @param shared shared KV ({@code true}) or the replicated baseline
     * @return what the layout made of the trace
     */
    public LayoutReport replay(List<TraceRequest> trace, boolean shared) {
        return replay(trace, shared, 0, null);
    }

    /**
     * Replays {@code trace} with one layout. With {@code speed > 0} each request is submitted at its
     * timestamp divided by {@code speed}, or later when the pipeline has not asked for it yet
     * (backpressure: nothing is dropped); {@code 0} submits as fast as the pipeline takes them. Each
     * request's latency runs from that arrival time to its result, so it includes the time
     * backpressure held the request; a paced request held more than {@link #QUEUED} s counts as queued.
     *
     * <p>With a {@code ttft} model, the served requests are also put, in trace order, through one
     * {@link ModelledInstance} of this CP size, arriving at their timestamps divided by the model's
     * speed, each with the prefix hits this replay gave it.
     *
     * @param trace  the requests, in arrival order
     * @param shared shared KV ({@code true}) or the replicated baseline
     * @param speed  how many times the trace's own pace, or 0 for as fast as possible
     * @param ttft   a cost model and the arrival speed it is run at, or null for no modelled times
     * @return what the layout made of the trace
     */
    public LayoutReport replay(List<TraceRequest> trace, boolean shared, double speed, @Nullable TtftModel ttft) {
        if (speed < 0 || Double.isNaN(speed)) {
            throw new IllegalArgumentException("speed " + speed + " must be > 0 (the trace's pace times it) or 0 (as fast as possible)");
        }
        long first = trace.isEmpty() ? 0 : trace.getFirst().timestampMs();
        Map<String, Double> traceSeconds = new HashMap<>();
        trace.forEach(r -> traceSeconds.put(id(r), r.secondsAfter(first)));
        long start = System.nanoTime();
        Map<String, Long> arrivals = new ConcurrentHashMap<>();
        java.util.function.ToLongFunction<TraceRequest> due = r -> start + (long) (r.secondsAfter(first) / speed * 1e9);
        List<Double> waits = new ArrayList<>(); // paced: how long each request waited past its arrival for the pipeline to ask for it
        Function<TraceRequest, PrefillRequest> arrive = r -> {
            String id = id(r);
            long now = System.nanoTime();
            long arrival = speed > 0 ? Math.min(now, due.applyAsLong(r)) : now;
            arrivals.put(id, arrival); // a paced request arrived when the trace says, however long backpressure held it
            if (speed > 0) {
                waits.add((now - arrival) / 1e9);
            }
            return new PrefillRequest(id, TraceTokens.of(r), r.outputLength());
        };
        int cut = restart == null ? trace.size() : Math.min(restart.after(), trace.size());
        List<List<TraceRequest>> parts = cut == trace.size() ? List.of(trace) : List.of(trace.subList(0, cut), trace.subList(cut, trace.size()));
        List<PrefillRun> runs = new ArrayList<>();
        AtomicReference<PrefillRun> current = new AtomicReference<>();
        Flux<PrefillResult> results = Flux.range(0, parts.size()).concatMap(part -> Flux.defer(() -> { // a part's run starts when the one before ended
            PrefillPipeline pipeline = pipeline(shared, part, part == 0 ? List.of() : parts.get(0));
            Flux<TraceRequest> paced = Flux.fromIterable(parts.get(part));
            if (speed > 0) {
                paced = paced.delayUntil(r -> Mono.delay(Duration.ofNanos(Math.max(0, due.applyAsLong(r) - System.nanoTime()))));
            }
            PrefillRun run = pipeline.start(paced.map(arrive));
            current.set(run);
            runs.add(run);
            return run.results();
        }));
        Map<String, Hits> hitsById = new ConcurrentHashMap<>();
        long[] counts = new long[4]; // completed, device hit tokens, recomputed tokens, host hit tokens
        Map<String, Long> refused = new TreeMap<>();
        List<Double> latencies = new ArrayList<>();
        List<TracePoint> timeline = new ArrayList<>();
        results.doOnNext(result -> {
            Long arrived = arrivals.remove(result.request().id());
            if (arrived != null) {
                latencies.add((System.nanoTime() - arrived) / 1e9);
            }
            if (result instanceof PrefillResult.Completed c) {
                counts[0]++;
                counts[1] += c.prefixHitTokens() - c.hostHitTokens();
                counts[2] += c.request().seqLen() - c.prefixHitTokens();
                counts[3] += c.hostHitTokens();
                hitsById.put(c.request().id(), new Hits(c.prefixHitTokens() - c.hostHitTokens(), c.hostHitTokens()));
                RunPools live = Objects.requireNonNull(current.get().pools(), "a run that serves has its pools");
                timeline.add(new TracePoint(traceSeconds.get(c.request().id()), (double) live.physicalPagesInUse() / live.ranks(),
                        (long) live.cachedPages() * pageSize, counts[1] + counts[3], counts[1] + counts[2] + counts[3]));
            } else if (result instanceof PrefillResult.Failed f) {
                refused.merge(code(f.error()), 1L, Long::sum);
            }
        }).blockLast(Duration.ofHours(2));
        double seconds = (System.nanoTime() - start) / 1e9;
        long input = trace.stream().mapToLong(TraceRequest::inputLength).sum();
        long peak = 0;
        long evicted = 0;
        long warm = 0;
        for (PrefillRun run : runs) {
            RunPools pools = Objects.requireNonNull(run.pools(), "a run that ran has its pools");
            peak = Math.max(peak, pools.peakPhysicalPages() / pools.ranks());
            evicted += pools.evictedPages();
            warm += run.warmStartTokens().stream().mapToLong(Long::longValue).sum();
        }
        return new LayoutReport(shared ? "shared" : "replicated", trace.size(), (int) counts[0], refused, input, counts[1], counts[3], counts[2],
                peak, evicted, (int) waits.stream().filter(w -> w > QUEUED).count(), Latencies.of(waits), seconds, latencies, timeline,
                ttft == null ? null : modelled(trace, traceSeconds, hitsById, shared, ttft), warm);
    }

    /**
     * A pipeline of this replay's sizes with the device prefix cache on: pages only (and the host
     * tier), or writing the model's rows on the device; shared KV or the replicated baseline.
     */
    PrefillPipeline pipeline(boolean shared) {
        return pipeline(shared, 0, List.of());
    }

    /**
     * The pipeline of part {@code part} of a replay with a restart: with a journal, part 0 backs up
     * into the layout's journal and part 1 starts warm from it with {@code before}'s prompts.
     */
    private PrefillPipeline pipeline(boolean shared, int part, List<TraceRequest> before) {
        CpSharedKvConfig.Builder builder = CpSharedKvConfig.DEFAULTS.toBuilder().cpSize(cp).pageSize(pageSize)
                .model(pageSize == 64 ? ModelKind.NSA_MLA : ModelKind.TOY_MLA).sharedKv(true).bsGt1(true);
        @Nullable Path journal = restart == null || restart.journal() == null ? null : restart.journal().resolve(shared ? "shared" : "replicated");
        if (bytes != null) {
            builder.kvDtype(bytes.model().layout().dtype());
        }
        if (journal != null && part == 0) {
            builder.hicache(HiCacheConfig.builder().enabled(true).writePolicy(WritePolicy.WRITE_THROUGH).build());
        }
        CpSharedKvConfig config = builder.build();
        OwnSpec own = (shared ? Ownership.byPageId() : Ownership.replicated()).pagesPerRank(pagesPerRank).prefixCaching(true);
        if (hostPages > 0) {
            own = own.hostTier(hostPages);
        }
        if (journal != null && part == 1) {
            own = own.warmStartFrom(journal, before.stream().map(TraceTokens::of).toList());
        }
        if (bytes == null) {
            return KvFlow.prefill(config).admit(Admission.batchGate().maxRequests(maxBatch)).split(Split.inSeq()).own(own)
                    .materialize(Materialize.fullView()).build();
        }
        PrefillFlow flow = KvFlow.prefill(config).model(bytes.model()).device(bytes.device()).admit(Admission.batchGate().maxRequests(maxBatch))
                .split(Split.inSeq()).own(own).write(Write.ownerRows()).materialize(Materialize.fullView());
        return (journal != null && part == 0 ? flow.backup(HiCacheBackup.journal(journal)) : flow).build();
    }

    /** The served requests of {@code trace} through one modelled instance, in trace order. */
    private ModelledTtft modelled(List<TraceRequest> trace, Map<String, Double> traceSeconds, Map<String, Hits> hitsById, boolean shared,
                                  TtftModel ttft) {
        ModelledInstance instance = new ModelledInstance(ttft.costs(), cp, shared);
        for (TraceRequest r : trace) {
            Hits hits = hitsById.get(id(r));
            if (hits != null) {
                instance.serve(traceSeconds.get(id(r)) / ttft.speed(), r.inputLength(), hits.device(), hits.host());
            }
        }
        return instance.report();
    }

    /** A served request's hit tokens by tier. */
    private record Hits(int device, int host) {}

    static String id(TraceRequest r) {
        return "line-" + r.line();
    }

    /** A short code for a refusal: the exception's simple name. */
    private static String code(Throwable error) {
        return error.getClass().getSimpleName();
    }
}
