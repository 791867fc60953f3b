package org.kvflow.operators;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.ownership.RequestPageTable;

/**
 * One request's progress through the pipeline: its page table and request-to-token row, the
 * prefix it reuses, the pages reserved for its next chunk, and what it produced. Created and
 * released by {@link KvGroup}; stages read and update it while it moves through them in order, so
 * only one stage touches it at a time.
 */
public final class RequestState {
    private final PrefillRequest request;
    private final List<String> pageKeys;
    private final List<byte[]> pageHashes;
    /** Pages admitted as a host-cache hit, loaded (not computed) with the first chunk. */
    int hostPages;
    /** Host pages still to be allocated by the shard stage / loaded by the write stage. */
    boolean hostAllocationPending;
    boolean hostLoadPending;
    final RequestPageTable table;
    /** ReqToTokenPool row: the logical KV loc of each computed token (SPEC §3.5). */
    final long[] reqToToken;
    int prefixPages;
    long reservedPages;
    /** Tokens handed to batches so far (prefix included): admission's cursor, ahead of allocation. */
    long admittedTokens;
    boolean started;
    boolean released;
    private boolean reported;
    private long sentTokens;
    private int batches;
    private int pagesSent;
    private long @Nullable [] decodePages;
    private @Nullable Throwable failure;
    private final Map<Long, float[]> attention = new HashMap<>();

    RequestState(PrefillRequest request, int pageSize, boolean hashPages) {
        this.request = Objects.requireNonNull(request, "request");
        this.table = new RequestPageTable(pageSize);
        this.reqToToken = new long[request.seqLen()];
        if (hashPages) {
            this.pageHashes = PageHashChain.fullPageHashes(request.tokenIds(), pageSize);
            List<String> keys = new ArrayList<>();
            for (byte[] hash : pageHashes) {
                keys.add(PageHashChain.key(hash));
            }
            this.pageKeys = List.copyOf(keys);
        } else {
            this.pageHashes = List.of();
            this.pageKeys = List.of();
        }
    }

    public PrefillRequest request() {
        return request;
    }

    public String id() {
        return request.id();
    }

    /** Chained hashes of the request's full pages (empty when neither cache is on). */
    public List<byte[]> pageHashes() {
        return pageHashes;
    }

    /** Pages loaded from the host cache instead of computed. */
    public int hostPages() {
        return hostPages;
    }

    /** Host pages the write stage has yet to load (the shard stage has allocated them); consumes the flag. */
    public boolean takeHostLoad() {
        boolean pending = hostLoadPending;
        hostLoadPending = false;
        return pending;
    }

    /** Chained hash keys of the request's full pages (empty when prefix caching is off). */
    List<String> pageKeys() {
        return pageKeys;
    }

    /** Tokens whose pages are allocated (prefix included): the start of the next chunk. */
    public long filledTokens() {
        return table.seqLen();
    }

    /** Tokens not yet handed to any batch. */
    public long remainingTokens() {
        return request.seqLen() - admittedTokens;
    }

    /** Tokens of the device prefix hit (locked cached pages at the head of the table). */
    public int prefixTokens() {
        return prefixPages * table.pageSize();
    }

    /** The live page table (stages read it; only {@link KvGroup} changes it). */
    public RequestPageTable table() {
        return table;
    }

    /** A copy of the logical page table {@code P}. */
    public int[] pageTable() {
        return table.pages();
    }

    /** The ReqToTokenPool row (live; stages that inject faults in tests may corrupt it). */
    public long[] reqToToken() {
        return reqToToken;
    }

    public @Nullable Throwable failure() {
        return failure;
    }

    public boolean failed() {
        return failure != null;
    }

    /** Marks the request failed; the first failure wins. */
    public void fail(Throwable error) {
        if (failure == null) {
            failure = error;
        }
    }

    /** Tokens whose pages have been sent to decode (always page-aligned until the last chunk). */
    public long sentTokens() {
        return sentTokens;
    }

    public void sentTokens(long tokens) {
        sentTokens = tokens;
    }

    public void countBatch() {
        batches++;
    }

    public void addPagesSent(int pages) {
        pagesSent += pages;
    }

    public long @Nullable [] decodePages() {
        return decodePages;
    }

    public void decodePages(long[] pages) {
        decodePages = pages;
    }

    public void putAttention(int layer, long position, float[] output) {
        attention.put(layer * (long) request.seqLen() + position, output);
    }

    /** True the first time only: a request reports its result exactly once. */
    public boolean markReported() {
        boolean first = !reported;
        reported = true;
        return first;
    }

    /** True once its pages went back to the group (finished, failed or cancelled). */
    public boolean isReleased() {
        return released;
    }

    /** Failed or released: stages skip it. */
    public boolean isInactive() {
        return failure != null || released;
    }

    public PrefillResult result() {
        if (failure != null) {
            return new PrefillResult.Failed(request, failure);
        }
        return new PrefillResult.Completed(request, (prefixPages + hostPages) * table.pageSize(), batches, pagesSent, attention);
    }
}
