package org.kvflow.operators;

import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.split.SplitPlan;

/**
 * One prefill batch as it moves through the stages: the admitted chunks in batch order, requests
 * rejected at intake (passed through to the results), and the CP split once the split stage ran.
 */
public record PrefillBatch(long batchId, List<Entry> entries, List<PrefillResult.Failed> rejected, @Nullable SplitPlan split) {
    public PrefillBatch {
        entries = List.copyOf(entries);
        rejected = List.copyOf(rejected);
    }

    /** A batch carrying only an intake rejection. */
    public static PrefillBatch rejection(long batchId, PrefillResult.Failed rejected) {
        return new PrefillBatch(batchId, List.of(), List.of(rejected), null);
    }

    public PrefillBatch withSplit(SplitPlan plan) {
        return new PrefillBatch(batchId, entries, rejected, Objects.requireNonNull(plan, "plan"));
    }

    /**
     * One request's chunk in this batch: extend tokens {@code [chunkStart, chunkStart + chunkLen)}.
     *
     * @param lastChunk whether the request's prefill completes with this chunk
     */
    public record Entry(RequestState state, long chunkStart, long chunkLen, boolean lastChunk) {
        public Entry {
            Objects.requireNonNull(state, "state");
        }
    }
}
