package org.kvflow.dsl;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.kvflow.core.KvflowException;
import org.kvflow.pages.HostTraffic;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.backup.HiCacheBackupOperator;
import org.kvflow.operators.materialize.MaterializeOperator;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.transfer.TransferBackend;

/**
 * The pipeline's Micrometer meters, named {@code kvflow.*}: requests by outcome, batches, prefilled
 * tokens, physical pages per rank and their peak, materialized bytes, transfer bytes and latency,
 * journaled pages and backups the journal refused, failures by error code, and rank processes lost and
 * restarted by rank. Every meter carries the pipeline's name ({@code pipeline}) and {@code layout=shared|replicated}, so pipelines, and a shared run and its
 * replicated baseline, stay apart in one registry; no tag grows per run. One instance per pipeline run.
 */
final class KvflowMetrics {
    private final MeterRegistry registry;
    /** What every meter of the run carries: the pipeline's name and the layout. */
    private final Tags tags;
    /** The run's gauges: one set per pipeline and layout, replaced by the next run's. */
    private static final List<String> GAUGES = List.of("kvflow.pages.inuse", "kvflow.pages.cached", "kvflow.pages.free", "kvflow.pages.peak",
            "kvflow.journal.pages", "kvflow.journal.refused",
            "kvflow.materialized.peak.bytes", "kvflow.pages.host.bytes");
    /** The stages that move page bytes, as the {@code stage} tag of {@code kvflow.pages.host.bytes}, and where other threads' bytes go. */
    private static final List<String> TRAFFIC_STAGES = List.of(OwnerWriteOperator.STAGE, MaterializeOperator.STAGE, HiCacheBackupOperator.STAGE, TransferBackend.STAGE,
            HostTraffic.UNATTRIBUTED);
    private final Timer transferLatency;
    private final long pageBytes;
    private final AtomicLong peakViewBytes = new AtomicLong();

    /**
     * @param layout   {@code shared} or {@code replicated}
     * @param pipeline the pipeline's name; both are tags of every meter
     */
    KvflowMetrics(MeterRegistry registry, long pageBytes, String layout, String pipeline) {
        this.registry = registry;
        this.pageBytes = pageBytes;
        this.tags = Tags.of("pipeline", pipeline, "layout", layout);
        this.transferLatency = Timer.builder("kvflow.transfer.latency").description("one send call of a run of pages, subscription to completion")
                .publishPercentileHistogram().tags(tags).register(registry);
    }

    /** Counts each rank process {@code pools} lose and each one restarted ({@code kvflow.ranks.lost}, {@code kvflow.ranks.restarted}, tag {@code rank}). */
    void watch(org.kvflow.pages.RankPools pools) {
        pools.listen(new org.kvflow.pages.RankPools.Listener() {
            @Override
            public void lost(int rank, RuntimeException why) {
                rankCounter("kvflow.ranks.lost", "rank processes that died, closed their connection or stopped answering", rank).increment();
            }

            @Override
            public void replaced(int rank, org.kvflow.pages.PageStore fresh) {
                rankCounter("kvflow.ranks.restarted", "lost rank processes started again with a fresh pool", rank).increment();
            }
        });
    }

    private Counter rankCounter(String name, String description, int rank) {
        return Counter.builder(name).description(description).tag("rank", Integer.toString(rank)).tags(tags).register(registry);
    }

    /**
     * Registers this run's gauges, replacing those of the last run of the same pipeline and layout:
     * they stay readable after a run ends (what {@code demo --metrics} prints), one set per pipeline and layout.
     */
    void bind(KvGroup group, Supplier<Long> journalPages, Supplier<Long> journalRefused, HostTraffic traffic) {
        for (String name : GAUGES) {
            registry.find(name).tags(tags).gauges().forEach(registry::remove);
        }
        for (int r = 0; r < group.config().cpSize(); r++) {
            int rank = r;
            // three that add up to the rank's pool: held by requests, held by the prefix cache, free
            Gauge.builder("kvflow.pages.inuse", group, g -> g.physicalPagesOnRank(rank) - g.cachedPagesOnRank(rank))
                    .description("physical pages requests hold on one rank (cached prefix pages are kvflow.pages.cached)")
                    .tag("rank", Integer.toString(r)).tags(tags).strongReference(true).register(registry);
            Gauge.builder("kvflow.pages.cached", group, g -> g.cachedPagesOnRank(rank))
                    .description("physical pages the device prefix cache holds on one rank, evictable unless a request uses them")
                    .tag("rank", Integer.toString(r)).tags(tags).strongReference(true).register(registry);
            Gauge.builder("kvflow.pages.free", group, g -> g.capacity().pagesPerRank() - g.physicalPagesOnRank(rank))
                    .description("physical pages free on one rank").tag("rank", Integer.toString(r)).tags(tags).strongReference(true)
                    .register(registry);
        }
        Gauge.builder("kvflow.pages.peak", group, KvGroup::peakPhysicalPages).description("most physical pages held at once, all ranks")
                .tags(tags).strongReference(true).register(registry);
        Gauge.builder("kvflow.journal.pages", journalPages, s -> s.get()).description("page records written to the HiCache journal")
                .tags(tags).strongReference(true).register(registry);
        Gauge.builder("kvflow.journal.refused", journalRefused, s -> s.get())
                .description("requests whose HiCache backup the journal refused (full, unwritable); they were served all the same")
                .tags(tags).strongReference(true).register(registry);
        Gauge.builder("kvflow.materialized.peak.bytes", peakViewBytes, AtomicLong::get)
                .description("largest full view of one batch: the scratch the view needs beside the pools").tags(tags)
                .strongReference(true).register(registry);
        for (String stage : TRAFFIC_STAGES) {
            Gauge.builder("kvflow.pages.host.bytes", traffic, t -> t.bytes(stage))
                    .description("page bytes moved between host memory and the device's pools and views, by the stage that moved them")
                    .baseUnit("bytes").tag("stage", stage.replace("kvflow.", "")).tags(tags).strongReference(true).register(registry);
        }
    }

    void batch(PrefillBatch batch) {
        counter("kvflow.batches", "batches admission formed").increment();
        long pages = 0;
        for (PrefillBatch.Entry e : batch.entries()) {
            pages += (e.chunkStart() + e.chunkLen() + e.state().table().pageSize() - 1) / e.state().table().pageSize();
        }
        counter("kvflow.materialized.bytes", "bytes of the full views the batches referenced").increment(pages * pageBytes);
        peakViewBytes.accumulateAndGet(pages * pageBytes, Math::max);
    }

    void result(PrefillResult result) {
        if (result instanceof PrefillResult.Completed c) {
            counter("kvflow.requests", "requests that left the pipeline, by outcome", "outcome", "completed").increment();
            counter("kvflow.tokens", "prompt tokens of completed requests").increment(c.request().seqLen());
        } else if (result instanceof PrefillResult.Failed f) {
            counter("kvflow.requests", "requests that left the pipeline, by outcome", "outcome", "failed").increment();
            counter("kvflow.rejections", "failed requests, by error code", "code", code(f.error())).increment();
        }
    }

    void transferred(long pages, long nanos) {
        counter("kvflow.transfer.bytes", "KV bytes sent to decode").increment(pages * pageBytes);
        transferLatency.record(java.time.Duration.ofNanos(nanos));
    }

    /** A decode session aborted: its request failed, or its run was cancelled before the result was delivered. */
    void aborted() {
        counter("kvflow.transfer.aborts", "decode sessions aborted (failed requests, cancelled runs)").increment();
    }

    /** Largest full view of one batch so far, in bytes. */
    long peakViewBytes() {
        return peakViewBytes.get();
    }

    /** The counter {@code name} of this pipeline and layout (and the given tag pairs), with its description. */
    private Counter counter(String name, String description, String... tags) {
        return Counter.builder(name).description(description).tags(tags).tags(this.tags).register(registry);
    }

    /** A short, stable code for a failure: the validation kind, or the exception's simple name. */
    static String code(Throwable error) {
        return error instanceof KvflowException k ? k.code() : "INTERNAL";
    }
}
