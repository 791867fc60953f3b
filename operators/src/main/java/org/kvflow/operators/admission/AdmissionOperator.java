package org.kvflow.operators.admission;

import java.util.Objects;
import java.util.function.Function;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillRequest;
import reactor.core.publisher.Flux;

/**
 * The prefill admission stage (contract §6): turns a stream of requests into batches with the
 * {@link PrefillAdder} pass, reserving each batch's pages in the {@link KvGroup} before it is
 * emitted. Backpressure is real: it asks upstream only for what its bounded waiting queue can
 * hold, emits a batch only on downstream demand, and when the pools are full it waits for pages
 * to come back instead of buffering. A request that could never fit an empty pool is rejected
 * alone at intake (contract §6.3) as a one-rejection batch; nothing else is refused.
 */
public final class AdmissionOperator implements Function<Flux<PrefillRequest>, Flux<PrefillBatch>> {
    private final KvGroup group;
    private final int queueCapacity;

    /**
     * Admission for one CP group.
     *
     * @param group         the CP group whose pools bound admission
     * @param queueCapacity most requests waiting for admission at once (≥ 1)
     */
    public AdmissionOperator(KvGroup group, int queueCapacity) {
        this.group = Objects.requireNonNull(group, "group");
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("queueCapacity must be >= 1, was " + queueCapacity);
        }
        this.queueCapacity = queueCapacity;
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillRequest> upstream) {
        CpSharedKvConfig config = group.config();
        return new AdmissionFlux(upstream, group, new PrefillAdder(config), queueCapacity).name("kvflow.admit");
    }
}
