package org.kvflow.operators.stage;

import org.kvflow.operators.group.PrefillBatch;
import reactor.core.publisher.Mono;

/**
 * A {@link BatchStage} whose work completes later, without holding a thread (a transport call, a
 * journal write on its own scheduler): the next batch value comes as a {@link Mono}. The same
 * rules hold: per-request problems come back as failed entries, an error fails every active
 * entry, and {@link StageRunner} releases the pages.
 */
@FunctionalInterface
public interface AsyncBatchStage {
    /**
     * The next value of {@code batch}, when the stage's work is done.
     *
     * @param batch the batch
     * @return the next value
     */
    Mono<PrefillBatch> apply(PrefillBatch batch);
}
