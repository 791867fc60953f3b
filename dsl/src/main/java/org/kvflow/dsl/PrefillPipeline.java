package org.kvflow.dsl;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.kernels.api.Device;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.RankPools;
import org.kvflow.pages.RankPoolsProvider;
import org.kvflow.operators.group.HostPageTier;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.model.KvModel;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.backup.HiCacheBackupOperator;
import org.kvflow.operators.backup.WarmStart;
import org.kvflow.operators.materialize.MaterializeOperator;
import org.kvflow.operators.pipeline.CpPrefillPipeline;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.operators.shard.ShardOperator;
import org.kvflow.operators.split.SplitOperator;
import org.kvflow.decode.DecodeReceiver;
import org.kvflow.transfer.InMemoryTransferBackend;
import org.kvflow.transfer.RunShape;
import org.kvflow.transfer.TransferBackend;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.core.scheduler.Scheduler;
import org.kvflow.kernels.rows.DevicePools;

/**
 * A built, validated prefill pipeline: a reusable {@code Function<Flux<PrefillRequest>,
 * Flux<PrefillResult>>} that runs the stages its flow named, in that order. Each subscription is
 * one independent run with fresh pools, its own transfer backend and journal handle (closed when
 * the run ends, however it ends); {@link #start} also hands back the run's own facts. Stages after
 * admission run on the flow's scheduler, one batch in flight. A subscriber {@code Context} key
 * {@value #TRACE_KEY} tags the per-request debug log lines.
 */
public final class PrefillPipeline implements Function<Flux<PrefillRequest>, Flux<PrefillResult>> {
    /** Context key whose value is logged with each result. */
    public static final String TRACE_KEY = "kvflow.trace";
    private static final Logger LOG = LoggerFactory.getLogger(PrefillPipeline.class);

    private final CpSharedKvConfig config;
    private final KvModel model;
    private final Device device;
    private final Scheduler scheduler;
    private final List<StageSpec> stages;
    private final MeterRegistry registry;
    private final String name;
    private final String plan;

    PrefillPipeline(CpSharedKvConfig config, KvModel model, Device device, Scheduler scheduler, List<StageSpec> stages,
                    MeterRegistry registry, String name, String plan) {
        this.name = name;
        this.config = config;
        this.model = model;
        this.device = device;
        this.scheduler = scheduler;
        this.stages = List.copyOf(stages);
        this.registry = registry;
        this.plan = plan;
    }

    /**
     * The config the pipeline runs with.
     *
     * @return the validated, normalised config
     */
    public CpSharedKvConfig config() {
        return config;
    }

    /**
     * The plan in words.
     *
     * @return the config's summary, then one stage per line
     */
    public String describe() {
        return plan;
    }

    /**
     * Where the pipeline's meters go.
     *
     * @return the registry the flow named, or its private one
     */
    public MeterRegistry registry() {
        return registry;
    }

    /**
     * Where the write stage's KV rows and the attention step are computed.
     *
     * @return the kernel device
     */
    public Device device() {
        return device;
    }

    @Override
    public Flux<PrefillResult> apply(Flux<PrefillRequest> requests) {
        return start(requests).results();
    }

    /**
     * One run over some requests.
     *
     * @param requests the requests, streamed with backpressure
     * @return the run: its results (nothing runs before they are subscribed to) and its own facts
     */
    public PrefillRun start(Flux<PrefillRequest> requests) {
        PrefillRun run = new PrefillRun();
        run.results(Flux.defer(() -> runOnce(requests, run)).name("kvflow.prefill"));
        return run;
    }

    /**
     * One run, its resources tied to its subscription: each is held from the moment it is acquired,
     * and every way the run ends (completion, error, a failure while it is assembled, cancel)
     * closes them all, last acquired first, after the decode-side aborts of a failed or cancelled run.
     */
    private Flux<PrefillResult> runOnce(Flux<PrefillRequest> requests, PrefillRun run) {
        return Flux.usingWhen(Mono.fromSupplier(RunResources::new), resources -> assemble(requests, run, resources),
                RunResources::close, (resources, error) -> resources.close(), RunResources::close);
    }

    private Flux<PrefillResult> assemble(Flux<PrefillRequest> requests, PrefillRun run, RunResources resources) {
        OwnSpec own = spec(OwnSpec.class);
        PageMemory memory = resources.hold(DevicePools.memoryFor(device));
        KvGroup.Builder pools = KvGroup.builder(config, own.layout(), own.capacity(config.pageSize(), !model.storesBytes() ? null : model.layout()))
                .prefixCaching(own.prefixCaching()).memory(memory);
        if (own.hostTierPages() > 0) {
            pools.hostCache(new HostPageTier(own.hostTierPages()));
        }
        long pageBytes = !model.storesBytes() ? 0 : model.layout().mlaPageBytes(config.pageSize()) + model.layout().indexPageBytes(config.pageSize());
        KvflowMetrics metrics = new KvflowMetrics(registry, pageBytes * (!model.storesBytes() ? 0 : model.layerCount()),
                own.layout() == org.kvflow.core.pool.PoolLayout.SHARED ? "shared" : "replicated", name);
        if (own.rankProcesses()) {
            boolean inPlace = find(MaterializeSpec.class).map(MaterializeSpec::inPlace).orElse(false);
            RankPools ranks = resources.hold(RankPoolsProvider.find().orElseThrow(PrefillFlow::noRankProcesses).open(memory.name(), inPlace));
            metrics.watch(ranks);
            pools.rankPools(ranks);
        }
        KvGroup group = resources.hold(pools.model(model).build());
        run.started(group, memory.hostTraffic());
        TransferSpec transfer = find(TransferSpec.class).orElse(null);
        RunShape shape = new RunShape(config.pageSize(), config.cpSize(), !model.storesBytes() ? null : model.layout());
        // Without a transfer stage a local receiver (pages only) stands in for decode. It frees a request when its result passes
        // downstream, while the pools already hold the next batches: room for the pools' pages several times over, so it never refuses.
        TransferBackend backend = transfer != null ? transfer.backend().apply(shape)
                : new InMemoryTransferBackend(new DecodeReceiver(Math.toIntExact(Math.min(Integer.MAX_VALUE - 1,
                        DEFAULT_RECEIVER_POOLS * group.capacity().logicalPages(own.layout(), config.cpSize()))) + 1, config.pageSize(), null));
        if (backend instanceof AutoCloseable closeable) {
            resources.hold(closeable);
        }
        List<CpPrefillPipeline.Stage> operators = new ArrayList<>();
        // its journal and staging pages are closed before the pools' memory
        HiCacheBackupOperator backup = find(BackupSpec.class)
                .map(b -> resources.hold(HiCacheBackupOperator.journaling(group, b.journalDir(), config.hicache().writePolicy()))).orElse(null);
        for (StageSpec spec : stages) {
            switch (spec) {
                case SplitSpec s -> operators.add(new SplitOperator(group)::apply);
                case OwnSpec s -> operators.add(new ShardOperator(group)::apply);
                case WriteSpec s -> operators.add(new OwnerWriteOperator(group, device)::apply);
                case MaterializeSpec m -> operators.add(new MaterializeOperator(group, m.sampler(), device, m.inPlace())::apply);
                case BackupSpec b -> operators.add(Objects.requireNonNull(backup)::apply);
                case AdmitSpec a -> { } // the pipeline's head
                case TransferSpec t -> { } // the pipeline's end
            }
        }
        metrics.bind(group, () -> backup == null ? 0L : backup.pagesJournaled(), () -> backup == null ? 0L : backup.failures(), memory.hostTraffic());
        CpPrefillPipeline inner = new CpPrefillPipeline(group, spec(AdmitSpec.class).queueCapacity(), operators,
                new MeteredTransferBackend(backend, metrics), scheduler, batch -> {
                    metrics.batch(batch);
                    run.viewBytes(metrics.peakViewBytes());
                }, resources::finishFirst);
        // a warm start fills the prefix cache from the journal before the first request is admitted
        Mono<Void> warm = own.warmJournal() == null ? Mono.empty()
                : Mono.fromRunnable(() -> run.warmStarted(WarmStart.restore(group, Objects.requireNonNull(own.warmJournal()), own.warmPrompts())))
                        .subscribeOn(Schedulers.boundedElastic()).then();
        return warm.thenMany(Flux.deferContextual(ctx -> {
                    Object trace = ctx.getOrDefault(TRACE_KEY, "-");
                    return requests.transform(inner).concatMap(result -> {
                        metrics.result(result);
                        LOG.debug("[{}] {} {}", trace, result.request().id(), result.getClass().getSimpleName());
                        // nobody decodes: free the local receiver's pages
                        return transfer == null ? backend.abort(result.request().id()).thenReturn(result) : Mono.just(result);
                    }, 1);
                }));
    }

    /** The local stand-in receiver's room, in the pools' logical pages (see where it is made). */
    private static final long DEFAULT_RECEIVER_POOLS = 4;

    private <S extends StageSpec> java.util.Optional<S> find(Class<S> type) {
        return stages.stream().filter(type::isInstance).map(type::cast).findFirst();
    }

    private <S extends StageSpec> S spec(Class<S> type) {
        return find(type).orElseThrow(() -> new IllegalStateException("build() admitted a flow without " + type.getSimpleName()));
    }
}
