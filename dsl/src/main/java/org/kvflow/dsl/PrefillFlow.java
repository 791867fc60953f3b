package org.kvflow.dsl;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.config.ConfigIssue;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.config.DisaggregationMode;
import org.kvflow.core.config.StartupValidator;
import org.kvflow.core.config.ValidationReport;
import org.kvflow.core.config.WritePolicy;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.DeviceNotFoundException;
import org.kvflow.kernels.api.Devices;
import org.kvflow.pages.MemoryUnavailableException;
import org.kvflow.pages.PageMemories;
import org.kvflow.pages.RankPoolsProvider;
import org.kvflow.model.KvModel;
import org.kvflow.model.ModelFit;
import org.kvflow.journal.JournalLayout;
import org.kvflow.journal.JournalIoException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;
import org.kvflow.kernels.rows.DevicePools;

/**
 * An immutable, partly built prefill flow: the config, the model, the device, and the stages in
 * the order they will run. Every step returns a new flow, so a half-built flow can be reused;
 * nothing runs before the built pipeline is subscribed to.
 */
public final class PrefillFlow {
    private static final Logger LOG = LoggerFactory.getLogger(PrefillFlow.class);

    /** The refusal when a flow asks for rank processes and no provider of them is on the class path. */
    static IllegalStateException noRankProcesses() {
        return new IllegalStateException("own: inRankProcesses() needs a rank-process provider on the class path (the kvflow-ranks module)");
    }

    private final CpSharedKvConfig config;
    private final KvModel model;
    private final String device;
    private final Scheduler scheduler;
    private final List<StageSpec> stages;
    private final MeterRegistry registry;
    private final String name;

    private PrefillFlow(CpSharedKvConfig config, KvModel model, String device, Scheduler scheduler, List<StageSpec> stages,
                        MeterRegistry registry, String name) {
        this.config = Objects.requireNonNull(config, "config");
        this.model = model;
        this.device = Objects.requireNonNull(device, "device");
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
        this.stages = List.copyOf(stages);
        this.registry = Objects.requireNonNull(registry, "registry");
        this.name = Objects.requireNonNull(name, "name");
    }

    static PrefillFlow start(CpSharedKvConfig config) {
        return new PrefillFlow(config, KvModel.pagesOnly(), "java", Schedulers.boundedElastic(), List.of(), new SimpleMeterRegistry(), "kvflow");
    }

    /**
     * The model whose KV rows are computed, stored, viewed, backed up and sent: the synthetic layer, a
     * DeepSeek V3.2 layer, or any other implementation; without one (or with
     * {@link KvModel#pagesOnly()}) the flow plans pages only. {@link #build()} checks that its layout
     * fits the config.
     *
     * @param m the model
     * @return the new flow
     */
    public PrefillFlow model(KvModel m) {
        return new PrefillFlow(config, Objects.requireNonNull(m, "model"), device, scheduler, stages, registry, name);
    }

    /**
     * Where the whole pipeline computes: {@code java} (the default), {@code cuda[:n]},
     * {@code opencl[:n]}, or {@code auto} (a CUDA GPU, then an OpenCL GPU, then an OpenCL CPU, then
     * Java). The write stage's rows and the attention step run there; on a {@code cuda} device the
     * ranks' pools and the full views live in that GPU's memory too.
     *
     * @param selector the device, as above
     * @return the new flow; an absent device is a {@code build()} problem
     */
    public PrefillFlow device(String selector) {
        return new PrefillFlow(config, model, Objects.requireNonNull(selector, "device"), scheduler, stages, registry, name);
    }

    /**
     * Where the stages after admission run, one batch in flight.
     *
     * @param s the scheduler (default {@code boundedElastic}: journal and transfer calls may block)
     * @return the new flow
     */
    public PrefillFlow scheduler(Scheduler s) {
        return new PrefillFlow(config, model, device, s, stages, registry, name);
    }

    /**
     * The pipeline's name, the {@code pipeline} tag of each of its meters (default {@code kvflow}), so
     * two pipelines in one registry stay apart.
     *
     * @param pipeline the name
     * @return the new flow
     * @throws IllegalArgumentException for a blank name
     */
    public PrefillFlow name(String pipeline) {
        if (pipeline.isBlank()) {
            throw new IllegalArgumentException("a pipeline's name is its meters' pipeline tag: give a non-blank name");
        }
        return new PrefillFlow(config, model, device, scheduler, stages, registry, pipeline);
    }

    /**
     * Where the pipeline's meters go.
     *
     * @param target the registry (default: a private {@code SimpleMeterRegistry})
     * @return the new flow
     */
    public PrefillFlow metrics(MeterRegistry target) {
        return new PrefillFlow(config, model, device, scheduler, stages, Objects.requireNonNull(target, "registry"), name);
    }

    /**
     * Adds admission (contract §6), the pipeline's head.
     *
     * @param spec the stage
     * @return the new flow
     */
    public PrefillFlow admit(AdmitSpec spec) {
        return with(spec);
    }

    /**
     * Adds the CP split (contract §5).
     *
     * @param spec the stage
     * @return the new flow
     */
    public PrefillFlow split(SplitSpec spec) {
        return with(spec);
    }

    /**
     * Adds page ownership and pool sizes (contract §4).
     *
     * @param spec the stage
     * @return the new flow
     */
    public PrefillFlow own(OwnSpec spec) {
        return with(spec);
    }

    /**
     * Adds the owner-row write (contract §4.4).
     *
     * @param spec the stage
     * @return the new flow
     */
    public PrefillFlow write(WriteSpec spec) {
        return with(spec);
    }

    /**
     * Adds full-view materialization and the attention step (contract §7).
     *
     * @param spec the stage
     * @return the new flow
     */
    public PrefillFlow materialize(MaterializeSpec spec) {
        return with(spec);
    }

    /**
     * Adds the HiCache backup (contract §11), optional.
     *
     * @param spec the stage
     * @return the new flow
     */
    public PrefillFlow backup(BackupSpec spec) {
        return with(spec);
    }

    /**
     * Adds the PD transfer (contract §8), the pipeline's end.
     *
     * @param spec the stage
     * @return the new flow
     */
    public PrefillFlow transfer(TransferSpec spec) {
        return with(spec);
    }

    private PrefillFlow with(StageSpec spec) {
        List<StageSpec> next = new ArrayList<>(stages);
        next.add(Objects.requireNonNull(spec, "spec"));
        return new PrefillFlow(config, model, device, scheduler, next, registry, name);
    }

    /**
     * The plan in words.
     *
     * @return the config's summary, then one stage per line, in the order they run
     */
    public String describe() {
        StringBuilder sb = new StringBuilder("prefill cp " + config.cpSize() + ", page " + config.pageSize()
                + (config.sharedKv() ? ", shared KV" : ", no shared KV") + (config.bsGt1() ? ", bs>1" : "") + ", device " + device
                + (!model.storesBytes() ? ", pages only" : ", " + model.name() + ", " + model.layerCount() + " layers " + model.layout().dtype().wireName()) + "\n");
        stages.forEach(s -> sb.append("  ").append(s).append('\n'));
        return sb.toString();
    }

    /**
     * Checks everything and builds the pipeline: the contract §10 matrix on the effective config (the
     * admit stage's caps applied), each stage at most once and in the order that can run (admit,
     * split, own, write, materialize, backup, transfer), the required stages (write when there is a
     * model, transfer in prefill mode), the split matching the config, pools the config can size, a
     * device that exists here, and the backup's preconditions.
     *
     * @return the pipeline, reusable: each subscription is a run
     * @throws PipelineDefinitionException listing every problem, each naming the setting
     */
    public PrefillPipeline build() {
        List<String> problems = new ArrayList<>();
        AdmitSpec admit = stage(AdmitSpec.class, problems);
        SplitSpec split = stage(SplitSpec.class, problems);
        OwnSpec own = stage(OwnSpec.class, problems);
        WriteSpec write = stage(WriteSpec.class, problems);
        MaterializeSpec materialize = stage(MaterializeSpec.class, problems);
        BackupSpec backup = stage(BackupSpec.class, problems);
        TransferSpec transfer = stage(TransferSpec.class, problems);
        for (int i = 1; i < stages.size(); i++) {
            if (stages.get(i).rank() < stages.get(i - 1).rank()) {
                problems.add(stages.get(i).stage() + " after " + stages.get(i - 1).stage()
                        + ": stages run admit, split, own, write, materialize, backup, transfer");
            }
        }
        CpSharedKvConfig effective = config;
        if (admit == null) {
            problems.add("admit: missing");
        } else if (admit.maxRequests() != null || admit.maxExtendTokens() != null) {
            effective = config.toBuilder()
                    .maxRequests(admit.maxRequests() != null ? admit.maxRequests() : config.maxRequests())
                    .maxExtendTokens(admit.maxExtendTokens() != null ? admit.maxExtendTokens() : config.maxExtendTokens()).build();
        }
        ValidationReport report = StartupValidator.validate(effective);
        for (ConfigIssue issue : report.errors()) {
            problems.add("config " + issue.code() + ": " + issue.message());
        }
        if (split == null) {
            problems.add("split: missing");
        } else if (split.mode() != config.split()) {
            problems.add("split=" + split.mode().wireName() + " but the config's split is " + config.split().wireName());
        }
        if (own == null) {
            problems.add("own: missing");
        } else if ((own.pagesPerRank() == null) == (own.budgetBytes() == null)) {
            problems.add("own: size the pools with pagesPerRank or budgetBytes (one of them)");
        } else if (own.budgetBytes() != null && !model.storesBytes()) {
            problems.add("own: budgetBytes=" + own.budgetBytes() + " needs the model's page bytes: give the flow a model");
        }
        if (own != null && own.warmJournal() != null) {
            warmStartProblems(own, problems);
        }
        if (own != null && own.hostTierPages() != 0) {
            if (own.hostTierPages() < 0) {
                problems.add("own: hostTier=" + own.hostTierPages() + " pages; give it at least one");
            }
            if (!own.prefixCaching()) {
                problems.add("own: hostTier takes the device prefix cache's evicted pages, but prefix caching is off");
            }
            if (model.storesBytes()) {
                problems.add("own: hostTier plans pages only; a flow with a model loads host pages from a journal (warmStartFrom)");
            }
        }
        if (own != null && own.rankProcesses() && !model.storesBytes()) {
            problems.add("own: rank processes hold KV pages; give the flow a model");
        }
        if (own != null && own.rankProcesses() && RankPoolsProvider.find().isEmpty()) {
            problems.add(noRankProcesses().getMessage());
        }
        if (materialize != null && materialize.inPlace() && (own == null || !own.rankProcesses() || own.layout() != org.kvflow.core.pool.PoolLayout.SHARED)) {
            problems.add("materialize: reading in place needs shared KV in rank processes: own(Ownership.byPageId()…inRankProcesses())");
        }
        if (materialize != null && materialize.inPlace() && !device.startsWith("cuda")) {
            problems.add("materialize: reading in place maps the rank pools into one CUDA virtual range; it needs device(\"cuda\"), not device(\""
                    + device + "\")");
        }
        if (write == null && model.storesBytes()) {
            problems.add("write: missing; a flow with a model writes its KV rows before it materializes them");
        } else if (write != null && !model.storesBytes()) {
            problems.add("write: there are no KV rows to write without a model; give the flow a model");
        }
        if (materialize == null) {
            problems.add("materialize: missing");
        }
        problems.addAll(ModelFit.problems(model, config));
        Device kernelDevice = Devices.java();
        if (!device.equals("java")) {
            try {
                kernelDevice = Devices.select(device);
                DevicePools.checkMemoryFor(kernelDevice); // found, not opened: build() allocates nothing
                LOG.debug("device={}: kernels on {}", device, kernelDevice);
            } catch (DeviceNotFoundException | MemoryUnavailableException e) {
                problems.add("device=" + device + ": " + e.getMessage());
            }
        }
        if (backup != null) {
            if (!config.hicache().enabled()) {
                problems.add("backup=" + backup.journalDir() + " needs hicache.enabled");
            }
            if (config.hicache().writePolicy() == WritePolicy.WRITE_BACK) {
                problems.add("backup with hicache.writePolicy=write_back: backups happen on device eviction, which the stage does not see");
            }
            if (!model.storesBytes()) {
                problems.add("backup needs KV bytes: give the flow a model");
            }
            List<String> flags = JournalJvmFlags.missing();
            if (!flags.isEmpty()) {
                problems.add("backup: the HiCache journal needs the JVM flags " + String.join(" ", flags) + " (see jvm.args in the README)");
            }
        }
        if (transfer == null && config.disaggregationMode() == DisaggregationMode.PREFILL) {
            problems.add("transfer: required with disaggregationMode=prefill");
        }
        if (transfer != null && transfer.unavailable() != null) {
            problems.add("transfer: " + transfer.unavailable());
        }
        if (transfer != null && transfer.kind() != null && transfer.kind() != config.transferBackend()) {
            problems.add("transfer=" + transfer.kind().wireName() + " but the config's transferBackend is " + config.transferBackend().wireName());
        }
        if (!problems.isEmpty()) {
            throw new PipelineDefinitionException(problems);
        }
        CpSharedKvConfig normalized = report.normalized().toBuilder().maxRequests(effective.maxRequests())
                .maxExtendTokens(effective.maxExtendTokens()).build();
        return new PrefillPipeline(normalized, model, kernelDevice, scheduler, stages, registry, name, describe());
    }

    /** A warm start needs the prefix cache, KV bytes, the journal's JVM flags and a journal of this flow's layout. */
    private void warmStartProblems(OwnSpec own, List<String> problems) {
        String where = "own: warm start from " + own.warmJournal();
        if (!own.prefixCaching()) {
            problems.add(where + " fills the device prefix cache, but prefix caching is off");
        }
        if (!model.storesBytes()) {
            problems.add(where + " needs KV bytes: give the flow a model");
            return;
        }
        List<String> flags = JournalJvmFlags.missing();
        if (!flags.isEmpty()) {
            problems.add(where + ": the HiCache journal needs the JVM flags " + String.join(" ", flags) + " (see jvm.args in the README)");
            return;
        }
        try {
            JournalLayout found = JournalLayout.read(Objects.requireNonNull(own.warmJournal()));
            JournalLayout wanted = new JournalLayout(config.pageSize(), model.layout());
            if (!found.equals(wanted)) {
                problems.add(where + " holds " + found + ", not this flow's " + wanted);
            }
        } catch (JournalIoException e) {
            problems.add(where + ": " + e.getMessage());
        }
    }

    private <S extends StageSpec> @Nullable S stage(Class<S> type, List<String> problems) {
        List<S> found = stages.stream().filter(type::isInstance).map(type::cast).toList();
        if (found.size() > 1) {
            problems.add(found.getFirst().stage() + ": given " + found.size() + " times; at most once");
        }
        return found.isEmpty() ? null : found.getFirst();
    }
}
