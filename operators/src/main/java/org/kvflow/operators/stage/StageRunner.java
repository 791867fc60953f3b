package org.kvflow.operators.stage;

import java.util.Objects;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import reactor.core.publisher.Mono;

/**
 * The one place where a stage's failures turn into freed pages: runs a {@link BatchStage} (or an
 * {@link AsyncBatchStage}) on a batch, fails every active entry if the stage threw, and releases (without caching) the pages of
 * every request that left the stage failed and still holds them. Requests whose pages were lost
 * with a rank's pool ({@link org.kvflow.operators.group.RequestState#lost}) fail before the stage sees them. The page bytes a stage
 * moves across the host are counted by its own views of the stores ({@link org.kvflow.operators.group.RankStores#countedAs}), not here.
 */
public final class StageRunner {
    private final KvGroup group;
    private final String stageName;

    /**
     * A runner for one stage of {@code group}'s pipeline.
     *
     * @param group     the group whose pages failed requests release
     * @param stageName the stage's operator name ({@code kvflow.write}, …), as Reactor's scan names the operator
     */
    public StageRunner(KvGroup group, String stageName) {
        this.group = Objects.requireNonNull(group, "group");
        this.stageName = Objects.requireNonNull(stageName, "stageName");
    }

    /** {@return the stage's operator name} */
    public String stageName() {
        return stageName;
    }

    /**
     * The batch after {@code stage}, with the pages of its newly failed requests back in the pools.
     *
     * @param stage the stage
     * @param batch the batch
     * @return the next value of the batch
     */
    public PrefillBatch run(BatchStage stage, PrefillBatch batch) {
        PrefillBatch live = batch.failLost();
        PrefillBatch next;
        try {
            next = stage.apply(live);
        } catch (RuntimeException e) {
            next = live.failActive(e);
        }
        return releaseFailed(next);
    }

    /**
     * {@link #run} for a stage whose work completes later (a transport call): the same failures, the same release.
     *
     * @param stage the stage
     * @param batch the batch
     * @return the next value of the batch, when the stage is done
     */
    public Mono<PrefillBatch> run(AsyncBatchStage stage, PrefillBatch batch) {
        PrefillBatch live = batch.failLost();
        return Mono.defer(() -> stage.apply(live))
                .onErrorResume(RuntimeException.class, e -> Mono.just(live.failActive(e)))
                .map(this::releaseFailed);
    }

    private PrefillBatch releaseFailed(PrefillBatch next) {
        for (PrefillBatch.Entry entry : next.entries()) {
            if (entry.failure() != null && !entry.state().isReleased()) {
                group.release(entry.state(), false);
            }
        }
        return next;
    }
}
