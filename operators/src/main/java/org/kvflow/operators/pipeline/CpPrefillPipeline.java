package org.kvflow.operators.pipeline;

import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.admission.AdmissionOperator;
import org.kvflow.operators.materialize.MaterializeOperator;
import org.kvflow.operators.materialize.QuerySampler;
import org.kvflow.operators.shard.OwnerWriteOperator;
import org.kvflow.operators.shard.ShardOperator;
import org.kvflow.operators.split.SplitOperator;
import org.kvflow.transfer.TransferBackend;
import org.kvflow.operators.transfer.TransferOperator;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.SignalType;
import reactor.core.scheduler.Scheduler;

/**
 * admit → the given batch stages, in the given order → transfer, over one {@link KvGroup} (contract
 * §13). Nothing runs before subscription; when the stream is cancelled or fails, every page still
 * held by a request and every open decode session is released. One subscription at a time per
 * group.
 */
public final class CpPrefillPipeline implements Function<Flux<PrefillRequest>, Flux<PrefillResult>> {
    /** A stage between admission and transfer. */
    public interface Stage extends Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    }

    private final KvGroup group;
    private final int queueCapacity;
    private final List<Stage> stages;
    private final TransferBackend backend;
    private final @Nullable Scheduler scheduler;
    private final Consumer<PrefillBatch> onBatch;
    private final Consumer<Mono<Void>> aborts;

    /**
     * A pipeline of admission, {@code stages} and transfer over one group.
     *
     * @param group         the CP group whose pools and stores it uses
     * @param queueCapacity most requests waiting for admission at once
     * @param stages        the stages after admission, in the order they run
     * @param scheduler     where the stages after admission run (one batch in flight); null: on
     *                      the thread that emits the batch
     * @param backend       where finished pages go (the decode side)
     * @param onBatch       sees every batch admission emits (metrics)
     * @param aborts        takes the decode-side aborts of a run that failed or was cancelled (they
     *                      complete after the run's last signal): whoever closes the backend waits
     *                      for them first, so no frame follows the close
     */
    public CpPrefillPipeline(KvGroup group, int queueCapacity, List<Stage> stages, TransferBackend backend, @Nullable Scheduler scheduler,
                             Consumer<PrefillBatch> onBatch, Consumer<Mono<Void>> aborts) {
        this.group = Objects.requireNonNull(group, "group");
        this.queueCapacity = queueCapacity;
        this.stages = List.copyOf(stages);
        this.backend = Objects.requireNonNull(backend, "backend");
        this.scheduler = scheduler;
        this.onBatch = Objects.requireNonNull(onBatch, "onBatch");
        this.aborts = Objects.requireNonNull(aborts, "aborts");
    }

    /**
     * split → own → write → materialize, kernels on {@code device}: the order contract §13 runs them in.
     *
     * @param group   the group
     * @param sampler which query positions attention evaluates
     * @param device  where the kernels run
     * @return the stages
     */
    public static List<Stage> standardStages(KvGroup group, QuerySampler sampler, Device device) {
        return List.of(new SplitOperator(group)::apply, new ShardOperator(group)::apply, new OwnerWriteOperator(group, device)::apply,
                new MaterializeOperator(group, sampler, device)::apply);
    }

    /**
     * The standard stages on the plain-Java device, run on the emitting thread; a failed or
     * cancelled run's decode-side aborts run on their own (the caller owns the backend).
     *
     * @param group         the group
     * @param backend       where finished pages go
     * @param sampler       which query positions attention evaluates
     * @param queueCapacity most requests waiting for admission at once
     * @return the pipeline
     */
    public static CpPrefillPipeline standard(KvGroup group, TransferBackend backend, QuerySampler sampler, int queueCapacity) {
        return new CpPrefillPipeline(group, queueCapacity, standardStages(group, sampler, Devices.java()), backend, null, batch -> { },
                Mono::subscribe);
    }

    /** {@return the group the pipeline runs over} */
    public KvGroup group() {
        return group;
    }

    @Override
    public Flux<PrefillResult> apply(Flux<PrefillRequest> requests) {
        return Flux.defer(() -> {
            TransferOperator transfer = new TransferOperator(group, backend);
            Flux<PrefillBatch> batches = requests.transform(new AdmissionOperator(group, queueCapacity)).doOnNext(onBatch);
            if (scheduler != null) {
                batches = batches.publishOn(scheduler, 1);
            }
            for (Stage stage : stages) {
                batches = batches.transform(stage);
            }
            return batches.transform(transfer)
                    .doFinally(signal -> {
                        if (signal != SignalType.ON_COMPLETE) {
                            aborts.accept(transfer.abortOpen());
                        }
                        group.releaseAll();
                    });
        }).name("kvflow.prefill");
    }
}
