package org.kvflow.operators.transfer;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.ownership.RequestPageTable;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.core.validate.PageGroups;
import org.kvflow.kernels.pages.PageStore;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.PrefillBatch;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.RequestState;
import reactor.core.publisher.Flux;

/**
 * The PD transfer stage (SPEC §8): after each chunk every prefill rank sends its pages through the
 * {@link TransferBackend}. Under shared KV a rank sends only the pages it owns, each to the decode
 * page of its logical position (SPEC §8.2); the replicated baseline sends the positional slice of
 * SPEC §8.1. Non-last chunks send only full pages; the last chunk sends the tail page whole and
 * every rank reports completion, then the request's pages go back (full pages to the prefix cache)
 * and its result is emitted. Pages of a prefix-cache hit are sent with the first chunk: decode needs
 * the whole KV. Each request yields exactly one result; intake rejections pass through.
 */
public final class TransferOperator implements Function<Flux<PrefillBatch>, Flux<PrefillResult>> {
    private final KvGroup group;
    private final TransferBackend backend;
    private final Set<String> open = ConcurrentHashMap.newKeySet();

    public TransferOperator(KvGroup group, TransferBackend backend) {
        this.group = Objects.requireNonNull(group, "group");
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    @Override
    public Flux<PrefillResult> apply(Flux<PrefillBatch> upstream) {
        // prefetch 1: demand for results turns into demand for batches one at a time, so admission
        // never forms batches nobody asked for
        return upstream.concatMapIterable(this::transfer, 1).name("kvflow.transfer");
    }

    /** Aborts every decode session still open (the stream was cancelled or failed). */
    public void abortOpen() {
        for (String id : List.copyOf(open)) {
            backend.abort(id);
            open.remove(id);
        }
    }

    private List<PrefillResult> transfer(PrefillBatch batch) {
        List<PrefillResult> results = new ArrayList<>(batch.rejected());
        for (PrefillBatch.Entry entry : batch.entries()) {
            RequestState state = entry.state();
            if (state.failed()) {
                report(state, results);
                continue;
            }
            if (state.isReleased()) {
                continue; // cancelled while in flight
            }
            try {
                sendChunk(entry);
                if (entry.lastChunk()) {
                    open.remove(state.id());
                    group.release(state, true);
                    report(state, results);
                }
            } catch (RuntimeException e) {
                state.fail(e);
                group.release(state, false);
                report(state, results);
            }
        }
        return results.isEmpty() ? Collections.emptyList() : results;
    }

    private void report(RequestState state, List<PrefillResult> results) {
        if (state.failed() && open.remove(state.id())) {
            backend.abort(state.id());
        }
        if (state.markReported()) {
            results.add(state.result());
        }
    }

    private void sendChunk(PrefillBatch.Entry entry) {
        RequestState state = entry.state();
        OwnershipMap ownership = group.ownership();
        int ps = ownership.pageSize();
        long[] decodePages = state.decodePages();
        if (decodePages == null) {
            int pageCount = (int) RequestPageTable.pagesFor(state.request().seqLen(), ps);
            decodePages = backend.open(state.id(), pageCount, ownership.cpSize());
            state.decodePages(decodePages);
            open.add(state.id());
        }
        // From what was sent before, not from the chunk start: a prefix hit's pages go to decode too.
        long end = entry.chunkStart() + entry.chunkLen();
        int[] slice = TransferPlanner.chunkPageSlice(state.sentTokens(), end, entry.lastChunk(), ps);
        long fullEnd = Math.min((long) slice[1] * ps, end - end % ps);
        if (fullEnd > (long) slice[0] * ps) { // the chunk's full pages: whole aligned groups of the request's row (SPEC §9)
            PageGroups.validatePageAlignedTokenIndices(Arrays.copyOfRange(state.reqToToken(), slice[0] * ps, (int) fullEnd), ps,
                    "pd transfer req " + state.id());
        }
        state.sentTokens(entry.lastChunk() ? end : end - end % ps);
        int[] pages = state.pageTable();
        for (int rank = 0; rank < ownership.cpSize(); rank++) {
            List<PagePair> pairs = group.layout() == PoolLayout.SHARED
                    ? TransferPlanner.plan(rank, ownership, pages, decodePages, slice[0], slice[1], entry.lastChunk()).pairs()
                    : replicatedPairs(rank, pages, decodePages, slice[0], slice[1]);
            long[] src = pairs.stream().mapToLong(PagePair::srcLocal).toArray();
            long[] dst = pairs.stream().mapToLong(PagePair::dst).toArray();
            @Nullable PageStore source = group.model() == null ? null : group.stores().rank(rank);
            for (PageRun run : TransferPlanner.groupRuns(src, dst)) {
                backend.send(state.id(), rank, run, source);
            }
            state.addPagesSent(pairs.size());
        }
        if (entry.lastChunk()) {
            for (int rank = 0; rank < ownership.cpSize(); rank++) {
                backend.complete(state.id(), rank);
            }
        }
    }

    /** Replicated CP: rank {@code r} sends the positional slice of the chunk's positions (its copy holds every page). */
    private List<PagePair> replicatedPairs(int rank, int[] pages, long[] decodePages, int start, int end) {
        int[] share = TransferPlanner.replicatedSlice(end - start, group.ownership().cpSize(), rank);
        List<PagePair> pairs = new ArrayList<>(share[1]);
        for (int pos = start + share[0]; pos < start + share[0] + share[1] && pos < decodePages.length; pos++) {
            pairs.add(new PagePair(pos, pages[pos], decodePages[pos]));
        }
        return pairs;
    }
}
