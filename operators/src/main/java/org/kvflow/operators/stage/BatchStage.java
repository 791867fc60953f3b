package org.kvflow.operators.stage;

import org.kvflow.operators.group.PrefillBatch;

/**
 * One stage's work on a batch, as a function of values: it reads the batch and returns the next
 * batch. A problem of one request is returned as that entry failed ({@link PrefillBatch#mapActive}
 * does this per entry); a {@link RuntimeException} thrown out of {@link #apply} fails every active
 * entry of the batch. A stage never releases pages: {@link StageRunner} does, once, for every entry
 * that left the stage failed. One instance serves one subscription; {@link #close()} frees what it holds.
 */
public interface BatchStage extends AutoCloseable {
    /**
     * The next value of {@code batch}.
     *
     * @param batch the batch
     * @return the next value
     */
    PrefillBatch apply(PrefillBatch batch);

    /** Frees per-run resources (device buffers); called once when the run ends, however it ends. */
    @Override
    default void close() {
    }
}
