package org.kvflow.operators.pipeline;

import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.admission.AdmissionOperator;
import org.kvflow.operators.materialize.MaterializeOperator;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.operators.shard.ShardOperator;
import org.kvflow.operators.split.SplitOperator;
import org.kvflow.operators.transfer.TransferBackend;
import org.kvflow.operators.transfer.TransferOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Scheduler;

/**
 * admit → split → own → write → materialize → (backup) → transfer over one {@link KvGroup} (SPEC §13).
 * Nothing runs before subscription; when the stream is cancelled or fails, every page still held
 * by a request and every open decode session is released. One subscription at a time per group.
 */
public final class CpPrefillPipeline implements Function<Flux<PrefillRequest>, Flux<PrefillResult>> {
    private final KvGroup group;
    private final TransferBackend backend;
    private final QuerySampler sampler;
    private final int queueCapacity;
    private final Function<Flux<PrefillBatch>, Flux<PrefillBatch>> backup;
    private final @Nullable Scheduler kernels;
    private final Consumer<PrefillBatch> onBatch;
    private final Device kernelDevice;

    /**
     * @param queueCapacity most requests waiting for admission at once
     */
    public CpPrefillPipeline(KvGroup group, TransferBackend backend, QuerySampler sampler, int queueCapacity) {
        this(group, backend, sampler, queueCapacity, Function.identity(), null, batch -> { }, Devices.java());
    }

    /**
     * @param backup  the HiCache backup stage, run between materialization and transfer
     * @param kernels where the stages after admission run (one batch in flight); null: on the
     *                thread that emits the batch
     * @param onBatch sees every batch admission emits (metrics)
     * @param kernelDevice where the kernels of the write stage (the layer's KV rows) and of the
     *                     attention step (indexer scores and top-k, sparse attention) run
     */
    public CpPrefillPipeline(KvGroup group, TransferBackend backend, QuerySampler sampler, int queueCapacity,
                             Function<Flux<PrefillBatch>, Flux<PrefillBatch>> backup, @Nullable Scheduler kernels,
                             Consumer<PrefillBatch> onBatch, Device kernelDevice) {
        this.group = Objects.requireNonNull(group, "group");
        this.backend = Objects.requireNonNull(backend, "backend");
        this.sampler = Objects.requireNonNull(sampler, "sampler");
        this.queueCapacity = queueCapacity;
        this.backup = Objects.requireNonNull(backup, "backup");
        this.kernels = kernels;
        this.onBatch = Objects.requireNonNull(onBatch, "onBatch");
        this.kernelDevice = Objects.requireNonNull(kernelDevice, "kernelDevice");
    }

    public KvGroup group() {
        return group;
    }

    @Override
    public Flux<PrefillResult> apply(Flux<PrefillRequest> requests) {
        return Flux.defer(() -> {
            TransferOperator transfer = new TransferOperator(group, backend);
            return requests
                    .transform(new AdmissionOperator(group, queueCapacity))
                    .doOnNext(onBatch)
                    .transform(batches -> kernels == null ? batches : batches.publishOn(kernels, 1))
                    .transform(new SplitOperator(group))
                    .transform(new ShardOperator(group))
                    .transform(new OwnerWriteOperator(group, kernelDevice))
                    .transform(new MaterializeOperator(group, sampler, kernelDevice))
                    .transform(backup)
                    .transform(transfer)
                    .doFinally(signal -> {
                        if (signal != SignalType.ON_COMPLETE) {
                            transfer.abortOpen();
                        }
                        group.releaseAll();
                    });
        }).name("kvflow.prefill");
    }
}
