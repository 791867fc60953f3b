package org.kvflow.operators.split;

import java.util.Arrays;
import java.util.Objects;
import java.util.function.Function;
import org.kvflow.core.config.CpSharedKvConfig;
import org.kvflow.core.split.CpSplit;
import org.kvflow.core.split.SplitPlan;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.stage.BatchStage;
import org.kvflow.operators.stage.StageOperator;
import org.kvflow.operators.stage.StageRunner;
import reactor.core.publisher.Flux;

/**
 * Attaches the CP split of each batch's chunks (contract §5): in-seq zigzag per request,
 * concatenated in batch order, or unsplit when any chunk is too short. Independent of ownership
 * (contract §5.3): every rank may need any page through the full view. A batch that cannot be split
 * fails its requests; later batches go on.
 */
public final class SplitOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    private final KvGroup group;
    private final CpSharedKvConfig config;

    /**

     * The CP split stage of one group.

     *

     * @param group the group whose configuration picks the split

     */
    public SplitOperator(KvGroup group) {
        this.group = Objects.requireNonNull(group, "group");
        this.config = group.config();
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        return new StageOperator(upstream, new StageRunner(group, "kvflow.split"), () -> (BatchStage) this::split);
    }

    private PrefillBatch split(PrefillBatch batch) {
        long[] lens = batch.entries().stream().mapToLong(PrefillBatch.Entry::chunkLen).toArray();
        SplitPlan plan = switch (config.split()) {
            case IN_SEQ_SPLIT -> CpSplit.inSeqBatch(lens, config.cpSize());
            case ROUND_ROBIN_SPLIT -> CpSplit.roundRobin(Arrays.stream(lens).sum(), config.cpSize());
            case NONE -> SplitPlan.unsplit();
        };
        return batch.withSplit(plan);
    }
}
