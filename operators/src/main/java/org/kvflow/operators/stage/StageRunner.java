package org.kvflow.operators.stage;

import java.util.Objects;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.PrefillBatch;

/**
 * The one place where a stage's failures turn into freed pages: runs a {@link BatchStage} on a
 * batch, fails every active entry if the stage threw, and releases (without caching) the pages of
 * every request that left the stage failed and still holds them.
 */
public final class StageRunner {
    private final KvGroup group;

    public StageRunner(KvGroup group) {
        this.group = Objects.requireNonNull(group, "group");
    }

    /** The batch after {@code stage}, with the pages of its newly failed requests back in the pools. */
    public PrefillBatch run(BatchStage stage, PrefillBatch batch) {
        PrefillBatch next;
        try {
            next = stage.apply(batch);
        } catch (RuntimeException e) {
            next = batch.failActive(e);
        }
        for (PrefillBatch.Entry entry : next.entries()) {
            if (entry.failure() != null && !entry.state().isReleased()) {
                group.release(entry.state(), false);
            }
        }
        return next;
    }
}
