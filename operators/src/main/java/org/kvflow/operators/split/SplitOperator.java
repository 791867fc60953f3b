package org.kvflow.operators.split;

import java.util.function.Function;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.split.CpSplit;
import org.kvflow.core.split.SplitMode;
import org.kvflow.core.split.SplitPlan;
import org.kvflow.operators.PrefillBatch;
import reactor.core.publisher.Flux;

/**
 * Attaches the CP split of each batch's chunks (SPEC §5): in-seq zigzag per request,
 * concatenated in batch order, or unsplit when any chunk is too short. Independent of ownership
 * (SPEC §5.3): every rank may need any page through the full view.
 */
public final class SplitOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    private final CpSharedKvConfig config;

    public SplitOperator(CpSharedKvConfig config) {
        this.config = config;
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        return upstream.map(this::split).name("kvflow.split");
    }

    private PrefillBatch split(PrefillBatch batch) {
        long[] lens = batch.entries().stream().mapToLong(PrefillBatch.Entry::chunkLen).toArray();
        SplitPlan plan = switch (config.split()) {
            case IN_SEQ_SPLIT -> CpSplit.inSeqBatch(lens, config.cpSize());
            case ROUND_ROBIN_SPLIT -> CpSplit.roundRobin(java.util.Arrays.stream(lens).sum(), config.cpSize());
            case NONE -> SplitPlan.unsplit();
        };
        return batch.withSplit(plan);
    }

    /** The mode this stage splits with. */
    public SplitMode mode() {
        return config.split();
    }
}
