package org.kvflow.operators.shard;

import java.util.Objects;
import java.util.function.Function;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.stage.BatchStage;
import org.kvflow.operators.stage.StageOperator;
import org.kvflow.operators.stage.StageRunner;
import reactor.core.publisher.Flux;

/**
 * The ownership stage: allocates each chunk's pages against the reservation admission made (contract
 * §4.4): logical page ids from the group's allocator, physical pages on their owners, the
 * request's page table and request-to-token row extended. A failure fails that request alone.
 */
public final class ShardOperator implements Function<Flux<PrefillBatch>, Flux<PrefillBatch>> {
    private final KvGroup group;

    /**

     * The page-ownership stage of one group.

     *

     * @param group the group whose pages it allocates
     */
    public ShardOperator(KvGroup group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    @Override
    public Flux<PrefillBatch> apply(Flux<PrefillBatch> upstream) {
        return new StageOperator(upstream, new StageRunner(group, "kvflow.own"), () -> (BatchStage) this::allocate);
    }

    private PrefillBatch allocate(PrefillBatch batch) {
        return batch.mapActive(entry -> {
            group.allocate(entry.state(), entry.chunkLen());
            return entry;
        });
    }
}
