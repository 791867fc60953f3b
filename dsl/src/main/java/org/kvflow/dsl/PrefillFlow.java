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

/**
 * An immutable, partly built prefill flow: the config and the stages added so far. Every step
 * returns a new flow, so a half-built flow can be reused; nothing runs before the built pipeline
 * is subscribed to.
 */
public final class PrefillFlow {
    private final CpSharedKvConfig config;
    private final List<StageSpec> stages;
    private final MeterRegistry registry;

    private PrefillFlow(CpSharedKvConfig config, List<StageSpec> stages, MeterRegistry registry) {
        this.config = Objects.requireNonNull(config, "config");
        this.stages = List.copyOf(stages);
        this.registry = registry;
    }

    static PrefillFlow start(CpSharedKvConfig config) {
        return new PrefillFlow(config, List.of(), new SimpleMeterRegistry());
    }

    public PrefillFlow admit(AdmitSpec spec) {
        return with(spec);
    }

    public PrefillFlow split(SplitSpec spec) {
        return with(spec);
    }

    public PrefillFlow own(OwnSpec spec) {
        return with(spec);
    }

    public PrefillFlow materialize(MaterializeSpec spec) {
        return with(spec);
    }

    public PrefillFlow backup(BackupSpec spec) {
        return with(spec);
    }

    public PrefillFlow transfer(TransferSpec spec) {
        return with(spec);
    }

    /** Where the pipeline's meters go (default: a private {@code SimpleMeterRegistry}). */
    public PrefillFlow metrics(MeterRegistry target) {
        return new PrefillFlow(config, stages, Objects.requireNonNull(target, "registry"));
    }

    private PrefillFlow with(StageSpec spec) {
        List<StageSpec> next = new ArrayList<>(stages);
        next.add(Objects.requireNonNull(spec, "spec"));
        return new PrefillFlow(config, next, registry);
    }

    /** The plan, one stage per line. */
    public String describe() {
        StringBuilder sb = new StringBuilder("prefill cp " + config.cpSize() + ", page " + config.pageSize()
                + (config.sharedKv() ? ", shared KV" : ", no shared KV") + (config.bsGt1() ? ", bs>1" : "") + "\n");
        stages.forEach(s -> sb.append("  ").append(s).append('\n'));
        return sb.toString();
    }

    /**
     * Checks everything and builds the pipeline: the SPEC §10 matrix on the effective config (the
     * admit stage's caps applied), each stage present at most once and in order (admit, split, own,
     * materialize, then backup and transfer), the required stages (transfer in prefill mode), the
     * split matching the config, a backend that can run here, and the backup's preconditions.
     *
     * @throws PipelineDefinitionException listing every problem, each naming the setting
     */
    public PrefillPipeline build() {
        List<String> problems = new ArrayList<>();
        AdmitSpec admit = stage(AdmitSpec.class, problems);
        SplitSpec split = stage(SplitSpec.class, problems);
        OwnSpec own = stage(OwnSpec.class, problems);
        MaterializeSpec materialize = stage(MaterializeSpec.class, problems);
        BackupSpec backup = stage(BackupSpec.class, problems);
        TransferSpec transfer = stage(TransferSpec.class, problems);
        for (int i = 1; i < stages.size(); i++) {
            if (stages.get(i).rank() < stages.get(i - 1).rank()) {
                problems.add(stages.get(i).stage() + " after " + stages.get(i - 1).stage() + ": stages go admit, split, own, "
                        + "materialize, then backup and transfer");
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
        } else if (own.capacity().pageSize() != config.pageSize()) {
            problems.add("own: pools of page size " + own.capacity().pageSize() + " but the config's page size is " + config.pageSize());
        }
        Device kernelDevice = Devices.java();
        if (materialize == null) {
            problems.add("materialize: missing");
        } else if (materialize.backend().equals("cuda")) {
            problems.add("materialize=cuda: the CUDA copier is not wired into the operators yet (pools are host memory); "
                    + "use java, auto or opencl[:n]");
        } else if (!materialize.backend().equals("java")) {
            try {
                kernelDevice = Devices.select(materialize.backend());
            } catch (DeviceNotFoundException e) {
                problems.add("materialize=" + materialize.backend() + ": " + e.getMessage());
            }
        }
        if (backup != null) {
            if (!config.hicache().enabled()) {
                problems.add("backup=" + backup.journalDir() + " needs hicache.enabled");
            }
            if (config.hicache().writePolicy() == WritePolicy.WRITE_BACK) {
                problems.add("backup with hicache.writePolicy=write_back: backups happen on device eviction, which the stage does not see");
            }
            if (materialize != null && materialize.model() == null) {
                problems.add("backup needs KV bytes: give materialize a model");
            }
        }
        if (transfer == null && config.disaggregationMode() == DisaggregationMode.PREFILL) {
            problems.add("transfer: required with disaggregationMode=prefill");
        }
        if (transfer != null && transfer.kind() != null && transfer.kind() != config.transferBackend()) {
            problems.add("transfer=" + transfer.kind().wireName() + " but the config's transferBackend is " + config.transferBackend().wireName());
        }
        if (!problems.isEmpty()) {
            throw new PipelineDefinitionException(problems);
        }
        return new PrefillPipeline(report.normalized().toBuilder().maxRequests(effective.maxRequests())
                .maxExtendTokens(effective.maxExtendTokens()).build(), Objects.requireNonNull(admit), Objects.requireNonNull(own),
                Objects.requireNonNull(materialize), kernelDevice, backup, transfer, registry, describe());
    }

    private <S extends StageSpec> @Nullable S stage(Class<S> type, List<String> problems) {
        List<S> found = stages.stream().filter(type::isInstance).map(type::cast).toList();
        if (found.size() > 1) {
            problems.add(found.getFirst().stage() + ": given " + found.size() + " times; at most once");
        }
        return found.isEmpty() ? null : found.getFirst();
    }
}
