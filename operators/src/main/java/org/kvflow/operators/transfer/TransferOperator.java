package org.kvflow.operators.transfer;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.ownership.RequestPageTable;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.core.validate.PageGroups;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.PrefillBatch;
import org.kvflow.operators.PrefillResult;
import org.kvflow.operators.group.RequestState;
import org.kvflow.operators.stage.AsyncBatchStage;
import org.kvflow.operators.stage.StageRunner;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import org.kvflow.transfer.TransferBackend;

/**
 * The PD transfer stage (contract §8) and the pipeline's end: after each chunk every prefill rank
 * sends its pages through the {@link TransferBackend}. Under shared KV a rank sends only the pages
 * it owns, each to the decode page of its logical position (contract §8.2); the replicated baseline
 * sends the positional slice of contract §8.1. Non-last chunks send only full pages; the last chunk
 * sends the tail page whole and every rank reports completion, then the request's pages go back
 * (full pages to the prefix cache) and its result is emitted. Pages of a prefix-cache hit are sent
 * with the first chunk: decode needs the whole KV. A request that failed in any stage is reported
 * failed and its decode session aborted. Each request yields exactly one result; intake
 * rejections pass through. One instance serves one run: it keeps each open request's transfer
 * session.
 */
public final class TransferOperator implements Function<Flux<PrefillBatch>, Flux<PrefillResult>> {
    private static final Logger LOG = LoggerFactory.getLogger(TransferOperator.class);

    private final KvGroup group;
    private final TransferBackend backend;
    private final Map<String, Session> open = new ConcurrentHashMap<>();
    /** Requests completed on decode whose results have not yet reached the subscriber. */
    private final Set<String> undelivered = ConcurrentHashMap.newKeySet();

    /** One request's transfer so far: its decode pages, what was sent, and the outputs of its chunks. */
    private static final class Session {
        final long[] decodePages;
        long sentTokens;
        int pagesSent;
        int chunks;
        final Map<Long, float[]> attention = new HashMap<>();

        Session(long[] decodePages) {
            this.decodePages = decodePages;
        }
    }

    /**
     * The transfer stage of one group.
     *
     * @param group   the group whose rank stores the pages are read from
     * @param backend where they go
     */
    public TransferOperator(KvGroup group, TransferBackend backend) {
        this.group = Objects.requireNonNull(group, "group");
        this.backend = Objects.requireNonNull(backend, "backend");
    }

    @Override
    public Flux<PrefillResult> apply(Flux<PrefillBatch> upstream) {
        // prefetch 1: demand for results turns into demand for batches one at a time, so admission
        // never forms batches nobody asked for
        StageRunner runner = new StageRunner(group, TransferBackend.STAGE);
        AsyncBatchStage send = batch -> batch.mapActiveAsync(this::sendChunk);
        return upstream.concatMap(batch -> runner.run(send, batch).flatMap(this::results).flatMapIterable(results -> results), 1)
                .doOnNext(result -> undelivered.remove(result.request().id()))
                .name(TransferBackend.STAGE);
    }

    /**
     * {@return aborts every decode session still open (the stream was cancelled or failed), and
     * those of requests that completed but whose results never reached the subscriber (decode would
     * hold them ready for a consumer that was never told); the aborts run when subscribed}
     */
    public Mono<Void> abortOpen() {
        List<String> ids = new ArrayList<>(open.keySet());
        ids.addAll(undelivered);
        return Flux.fromIterable(ids)
                .concatMap(id -> {
                    open.remove(id);
                    undelivered.remove(id);
                    return abortQuietly(id);
                })
                .then();
    }

    /** The batch's results: intake rejections, requests that failed in it (their decode sessions aborted), and requests it completed. */
    private Mono<List<PrefillResult>> results(PrefillBatch batch) {
        List<PrefillResult> results = new ArrayList<>(batch.rejected());
        List<Mono<Void>> aborts = new ArrayList<>();
        for (PrefillBatch.Entry entry : batch.entries()) {
            Throwable failure = entry.failure();
            if (failure != null) {
                if (open.remove(entry.id()) != null) {
                    aborts.add(abortQuietly(entry.id()));
                }
                if (entry.state().claimResult()) {
                    results.add(new PrefillResult.Failed(entry.state().request(), failure));
                }
            } else if (entry.active()) {
                Session session = Objects.requireNonNull(open.get(entry.id()), "a sent chunk has a session");
                session.chunks++;
                session.attention.putAll(entry.attention());
                if (entry.lastChunk()) {
                    open.remove(entry.id());
                    undelivered.add(entry.id());
                    group.release(entry.state(), true);
                    entry.state().claimResult();
                    results.add(new PrefillResult.Completed(entry.state().request(), entry.state().reusedTokens(),
                            entry.state().hostPages() * group.config().pageSize(), session.chunks,
                            session.pagesSent, session.attention));
                }
            } // else released while in flight: cancelled, nothing to report
        }
        return Flux.concat(aborts).then(Mono.just(results.isEmpty() ? Collections.emptyList() : results));
    }

    /** Aborts a request's decode session; a failure to do so is logged (the request has failed already). */
    private Mono<Void> abortQuietly(String requestId) {
        return backend.abort(requestId).onErrorResume(e -> {
            LOG.warn("aborting the decode session of request {} failed: {}", requestId, e.toString());
            return Mono.empty();
        });
    }

    /** Opens the request's decode session on its first chunk. */
    private Mono<Session> session(RequestState state) {
        Session existing = open.get(state.id());
        if (existing != null) {
            return Mono.just(existing);
        }
        int pageCount = (int) RequestPageTable.pagesFor(state.request().seqLen(), group.ownership().pageSize());
        return backend.open(state.id(), pageCount, group.ownership().cpSize()).map(decodePages -> {
            Session session = new Session(decodePages);
            open.put(state.id(), session);
            return session;
        });
    }

    private Mono<PrefillBatch.Entry> sendChunk(PrefillBatch.Entry entry) {
        RequestState state = entry.state();
        OwnershipMap ownership = group.ownership();
        int ps = ownership.pageSize();
        return session(state).flatMap(session -> {
            // From what was sent before, not from the chunk start: a prefix hit's pages go to decode too.
            long end = entry.chunkEnd();
            int[] slice = TransferPlanner.chunkPageSlice(session.sentTokens, end, entry.lastChunk(), ps);
            long fullEnd = Math.min((long) slice[1] * ps, end - end % ps);
            if (fullEnd > (long) slice[0] * ps) { // the chunk's full pages: whole aligned groups of the request's row (contract §9)
                PageGroups.validatePageAlignedTokenIndices(state.locs((long) slice[0] * ps, fullEnd), ps, "pd transfer req " + state.id());
            }
            session.sentTokens = entry.lastChunk() ? end : end - end % ps;
            int[] pages = state.pageTable();
            List<Mono<Void>> sends = new ArrayList<>();
            for (int rank = 0; rank < ownership.cpSize(); rank++) {
                List<PagePair> pairs = group.layout() == PoolLayout.SHARED
                        ? TransferPlanner.plan(rank, ownership, pages, session.decodePages, slice[0], slice[1], entry.lastChunk()).pairs()
                        : replicatedPairs(rank, pages, session.decodePages, slice[0], slice[1]);
                long[] src = pairs.stream().mapToLong(PagePair::srcLocal).toArray();
                long[] dst = pairs.stream().mapToLong(PagePair::dst).toArray();
                @Nullable PageStore source = group.model().storesBytes() ? group.stores().countedAs(TransferBackend.STAGE).rank(rank) : null;
                int from = rank;
                TransferPlanner.groupRuns(src, dst).forEach(run -> sends.add(backend.send(state.id(), from, run, source)));
                session.pagesSent += pairs.size();
            }
            if (entry.lastChunk()) {
                for (int rank = 0; rank < ownership.cpSize(); rank++) {
                    sends.add(backend.complete(state.id(), rank));
                }
            }
            return Flux.concat(sends).then(Mono.just(entry));
        });
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
