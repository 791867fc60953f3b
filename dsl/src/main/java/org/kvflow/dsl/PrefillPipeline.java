package org.kvflow.dsl;

import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.journal.HiCacheJournal;
import org.kvflow.kernels.api.Device;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalOptions;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.KvModel;
import org.kvflow.operators.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.backup.HiCacheBackupOperator;
import org.kvflow.operators.pipeline.CpPrefillPipeline;
import org.kvflow.operators.transfer.DecodeReceiver;
import org.kvflow.operators.transfer.InMemoryTransferBackend;
import org.kvflow.operators.transfer.TransferBackend;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

/**
 * A built, validated prefill pipeline: a reusable {@code Function<Flux<PrefillRequest>,
 * Flux<PrefillResult>>}. Each subscription is one run with fresh pools, its own transfer backend
 * and journal handle (closed when the run ends, however it ends). Stages after admission run on
 * {@code boundedElastic}, one batch in flight, so transfer and journal calls never block a
 * non-blocking Reactor thread. A subscriber {@code Context} key {@value #TRACE_KEY} tags the
 * per-request debug log lines.
 */
public final class PrefillPipeline implements Function<Flux<PrefillRequest>, Flux<PrefillResult>> {
    /** Context key whose value is logged with each result. */
    public static final String TRACE_KEY = "kvflow.trace";
    private static final Logger LOG = LoggerFactory.getLogger(PrefillPipeline.class);

    private final CpSharedKvConfig config;
    private final AdmitSpec admit;
    private final OwnSpec own;
    private final MaterializeSpec materialize;
    private final Device kernelDevice;
    private final @Nullable BackupSpec backup;
    private final @Nullable TransferSpec transfer;
    private final MeterRegistry registry;
    private final String plan;
    private final AtomicReference<@Nullable KvGroup> lastGroup = new AtomicReference<>();
    private final java.util.concurrent.atomic.AtomicLong lastPeakViewBytes = new java.util.concurrent.atomic.AtomicLong();

    PrefillPipeline(CpSharedKvConfig config, AdmitSpec admit, OwnSpec own, MaterializeSpec materialize, Device kernelDevice,
                    @Nullable BackupSpec backup, @Nullable TransferSpec transfer, MeterRegistry registry, String plan) {
        this.config = config;
        this.admit = admit;
        this.own = own;
        this.materialize = materialize;
        this.kernelDevice = kernelDevice;
        this.backup = backup;
        this.transfer = transfer;
        this.registry = registry;
        this.plan = plan;
    }

    /** The validated, normalised config the pipeline runs with. */
    public CpSharedKvConfig config() {
        return config;
    }

    /** The plan, one stage per line. */
    public String describe() {
        return plan;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The pools of the latest run (its pages, peaks and cache), or null before the first. */
    public @Nullable KvGroup lastGroup() {
        return lastGroup.get();
    }

    /** The kernel device the write stage's KV rows and the attention step are computed on (chosen at build() from the materialize backend). */
    public Device kernelDevice() {
        return kernelDevice;
    }

    /** The largest full view one batch of the latest run needed (scratch beside the pools, SPEC §7). */
    public long lastPeakViewBytes() {
        return lastPeakViewBytes.get();
    }

    @Override
    public Flux<PrefillResult> apply(Flux<PrefillRequest> requests) {
        return Flux.defer(() -> {
            KvModel model = materialize.model();
            KvGroup group = KvGroup.create(config, own.layout(), own.capacity(), model, own.prefixCaching());
            lastGroup.set(group);
            long pageBytes = model == null ? 0 : model.layout().mlaPageBytes(config.pageSize()) + model.layout().indexPageBytes(config.pageSize());
            KvflowMetrics metrics = new KvflowMetrics(registry, pageBytes * (model == null ? 0 : model.layerCount()));
            TransferBackend backend = transfer != null ? transfer.backend().get()
                    : new InMemoryTransferBackend(new DecodeReceiver(Math.toIntExact(group.capacity().logicalPages(own.layout(), config.cpSize())) + 1,
                    config.pageSize(), null));
            HiCacheJournal journal = backup == null ? null : HiCacheJournal.open(JournalOptions.of(backup.journalDir(),
                    new JournalLayout(config.pageSize(), Objects.requireNonNull(model).layout())));
            HiCacheBackupOperator backupStage = journal == null ? null
                    : new HiCacheBackupOperator(group, journal, config.hicache().writePolicy());
            metrics.bind(group, () -> backupStage == null ? 0L : backupStage.pagesJournaled());
            Function<Flux<PrefillBatch>, Flux<PrefillBatch>> backupFn = backupStage == null ? Function.identity() : backupStage;
            CpPrefillPipeline inner = new CpPrefillPipeline(group, new MeteredTransferBackend(backend, metrics), materialize.sampler(),
                    admit.queueCapacity(), backupFn, Schedulers.boundedElastic(), metrics::batch, kernelDevice);
            return Flux.deferContextual(ctx -> {
                        Object trace = ctx.getOrDefault(TRACE_KEY, "-");
                        return requests.transform(inner).doOnNext(result -> {
                            metrics.result(result);
                            if (transfer == null) {
                                backend.abort(result.request().id()); // nobody decodes: free the local receiver's pages
                            }
                            LOG.debug("[{}] {} {}", trace, result.request().id(), result.getClass().getSimpleName());
                        });
                    })
                    .doFinally(signal -> {
                        lastPeakViewBytes.set(metrics.peakViewBytes());
                        metrics.unbind();
                        if (journal != null) {
                            journal.close();
                        }
                        if (backend instanceof AutoCloseable closeable) {
                            try {
                                closeable.close();
                            } catch (Exception e) {
                                LOG.warn("closing the transfer backend failed: {}", e.toString());
                            }
                        }
                    });
        }).name("kvflow.prefill");
    }
}
