package org.kvflow.operators.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.split.SplitPlan;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import org.kvflow.operators.PrefillResult;

/**
 * One prefill batch as it moves through the stages, as a value: the admitted chunks in batch
 * order, requests refused at intake (passed through to the results), and the CP split once the
 * split stage ran. A stage returns a new batch; a request that fails in a stage leaves it as a
 * failed entry (its pages are released by the stage runner, once) and is reported by the last
 * stage.
 *
 * @param batchId  the batch's number, in admission order
 * @param entries  the admitted chunks, in batch order
 * @param rejected requests refused at intake
 * @param split    the CP split of the batch's tokens, once the split stage ran
 */
public record PrefillBatch(long batchId, List<Entry> entries, List<PrefillResult.Failed> rejected, @Nullable SplitPlan split) {
    /** Copies the lists. */
    public PrefillBatch {
        entries = List.copyOf(entries);
        rejected = List.copyOf(rejected);
    }

    /**
     * A batch of freshly admitted chunks.
     *
     * @param batchId the batch's number
     * @param entries the chunks
     * @return the batch
     */
    public static PrefillBatch admitted(long batchId, List<Entry> entries) {
        return new PrefillBatch(batchId, entries, List.of(), null);
    }

    /**
     * A batch carrying only an intake rejection.
     *
     * @param batchId  the batch's number
     * @param rejected the refused request
     * @return the batch
     */
    public static PrefillBatch rejection(long batchId, PrefillResult.Failed rejected) {
        return new PrefillBatch(batchId, List.of(), List.of(rejected), null);
    }

    /**
     * The same batch with its CP split.
     *
     * @param plan the split
     * @return the new batch
     */
    public PrefillBatch withSplit(SplitPlan plan) {
        return new PrefillBatch(batchId, entries, rejected, Objects.requireNonNull(plan, "plan"));
    }

    /**
     * The same batch with other entries (same count, same order).
     *
     * @param next the entries
     * @return the new batch
     */
    public PrefillBatch withEntries(List<Entry> next) {
        if (next.size() != entries.size()) {
            throw new IllegalArgumentException("batch " + batchId + " has " + entries.size() + " entries, not " + next.size());
        }
        return new PrefillBatch(batchId, next, rejected, split);
    }

    /**
     * Entries still in the prefill: not failed, not released (cancelled).
     *
     * @return them, in batch order
     */
    public List<Entry> active() {
        return entries.stream().filter(Entry::active).toList();
    }

    /**
     * Applies {@code step} to every active entry, one at a time: an entry whose step throws
     * becomes a failed entry and the rest go on. Inactive entries pass unchanged.
     *
     * @param step the stage's work on one entry
     * @return the new batch
     */
    public PrefillBatch mapActive(UnaryOperator<Entry> step) {
        List<Entry> next = new ArrayList<>(entries.size());
        for (Entry entry : entries) {
            if (!entry.active()) {
                next.add(entry);
                continue;
            }
            try {
                next.add(Objects.requireNonNull(step.apply(entry), "a stage returned no entry"));
            } catch (RuntimeException e) {
                next.add(entry.failed(e));
            }
        }
        return withEntries(next);
    }

    /**
     * {@link #mapActive} for a step that completes later: entries go through {@code step} one after
     * another, in batch order; an entry whose step fails becomes a failed entry and the rest go on.
     *
     * @param step the stage's work on one entry
     * @return the new batch, once every step ended
     */
    public Mono<PrefillBatch> mapActiveAsync(Function<Entry, Mono<Entry>> step) {
        return Flux.fromIterable(entries)
                .concatMap(entry -> !entry.active() ? Mono.just(entry)
                        : Mono.defer(() -> step.apply(entry)).onErrorResume(RuntimeException.class, e -> Mono.just(entry.failed(e))), 1)
                .collectList()
                .map(this::withEntries);
    }

    /**
     * Every active entry whose request lost pages with a rank's pool ({@link RequestState#lost})
     * failed with that loss: no stage works on pages that are gone.
     *
     * @return the new batch (this one when no entry lost any)
     */
    public PrefillBatch failLost() {
        if (entries.stream().noneMatch(e -> e.active() && e.state().lost() != null)) {
            return this;
        }
        return withEntries(entries.stream().map(e -> e.active() && e.state().lost() != null ? e.failed(e.state().lost()) : e).toList());
    }

    /**
     * Every active entry failed with {@code error} (a problem of the whole batch, e.g. its full view).
     *
     * @param error the failure
     * @return the new batch
     */
    public PrefillBatch failActive(Throwable error) {
        return withEntries(entries.stream().map(e -> e.active() ? e.failed(error) : e).toList());
    }

    /**
     * One request's chunk in this batch: extend tokens {@code [chunkStart, chunkStart + chunkLen)}.
     *
     * @param state      the request
     * @param chunkStart the chunk's first token
     * @param chunkLen   the chunk's tokens
     * @param lastChunk whether the request's prefill completes with this chunk
     * @param failure   why the request failed in this batch, or null
     * @param attention attention outputs the chunk's sampled queries produced, keyed {@code layer · seqLen + position}
     */
    public record Entry(RequestState state, long chunkStart, long chunkLen, boolean lastChunk, @Nullable Throwable failure,
                        Map<Long, float[]> attention) {
        /** Copies the attention outputs. */
        public Entry {
            Objects.requireNonNull(state, "state");
            attention = Map.copyOf(attention);
        }

        /**
         * A chunk that has not run any stage yet.
         *
         * @param state      the request
         * @param chunkStart the chunk's first token
         * @param chunkLen   the chunk's tokens
         * @param lastChunk  whether the request's prefill completes with this chunk
         */
        public Entry(RequestState state, long chunkStart, long chunkLen, boolean lastChunk) {
            this(state, chunkStart, chunkLen, lastChunk, null, Map.of());
        }

        /**
         * Still in the prefill: not failed, and its request not released (cancelled or failed in an earlier batch).
         *
         * @return whether it is
         */
        public boolean active() {
            return failure == null && !state.isReleased();
        }

        /**
         * The entry failed with {@code error}; a failure already recorded wins.
         *
         * @param error the failure
         * @return the failed entry
         */
        public Entry failed(Throwable error) {
            return failure != null ? this : new Entry(state, chunkStart, chunkLen, lastChunk, Objects.requireNonNull(error, "error"), attention);
        }

        /**
         * The entry with {@code outputs} (keyed as {@link #attention()}) added to its attention outputs.
         *
         * @param outputs the outputs
         * @return the new entry
         */
        public Entry withAttention(Map<Long, float[]> outputs) {
            Map<Long, float[]> all = new HashMap<>(attention);
            all.putAll(outputs);
            return new Entry(state, chunkStart, chunkLen, lastChunk, failure, all);
        }

        /**
         * The request's id.
         *
         * @return the id
         */
        public String id() {
            return state.id();
        }

        /**
         * One past the chunk's last token.
         *
         * @return the token index
         */
        public long chunkEnd() {
            return chunkStart + chunkLen;
        }
    }
}
