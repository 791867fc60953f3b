package org.kvflow.operators.group;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import org.kvflow.core.hicache.PageHashChain;
import org.kvflow.core.ownership.RequestPageTable;
import org.kvflow.core.pool.KvPools;
import org.kvflow.operators.PrefillRequest;

/**
 * One request's progress through the pipeline: its page table and request-to-token row, the
 * prefix it reuses and the pages reserved for its next chunk. Created, changed and released only by
 * its group's {@link PageAccounting}, through the transitions below; stages read it. What a stage produces travels in the batch value
 * ({@link PrefillBatch.Entry}), not here.
 */
public final class RequestState {
    private final PrefillRequest request;
    private final List<String> pageKeys;
    private final List<byte[]> pageHashes;
    /** Pages admitted as a host-cache hit, loaded (not computed) with the first chunk. */
    private int hostPages;
    /** Host pages still to be allocated by the shard stage. */
    private boolean hostAllocationPending;
    private final RequestPageTable table;
    /** ReqToTokenPool row: the logical KV loc of each computed token (contract §3.5). */
    private final long[] reqToToken;
    private int prefixPages;
    private long reservedPages;
    /** Tokens handed to batches so far (prefix included): admission's cursor, ahead of allocation. */
    private long admittedTokens;
    private boolean started;
    private boolean released;
    /** Set by the one result the request gets: a later chunk's failure, after the request failed already, reports nothing. */
    private final AtomicBoolean resultClaimed = new AtomicBoolean();
    /** Why pages this request holds were lost with a rank's pool; null while they are all there. */
    private volatile @org.jspecify.annotations.Nullable RuntimeException lost;

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

    /**
     * The first chunk's admission: adopts {@code prefix} (locked cached pages) as the head of the
     * page table and notes {@code hostPages} pages to load from the host cache with it.
     */
    void start(int[] prefix, int hostPages) {
        table.adoptPrefix(prefix);
        prefixPages = prefix.length;
        for (int t = 0; t < table.seqLen(); t++) {
            reqToToken[t] = table.loc(t);
        }
        started = true;
        admittedTokens = table.seqLen();
        this.hostPages = hostPages;
        hostAllocationPending = hostPages > 0;
    }

    /** Admission handed {@code tokens} more to batches and reserved {@code pages} for them. */
    void admit(long tokens, long pages) {
        admittedTokens += tokens;
        reservedPages += pages;
    }

    /** Tokens the next allocation covers: the chunk's, plus the host-hit pages' on the first one (then no more). */
    long takeTokensToAllocate(long chunkTokens) {
        long tokens = chunkTokens + (hostAllocationPending ? (long) hostPages * table.pageSize() : 0);
        hostAllocationPending = false;
        return tokens;
    }

    /** Extends the page table by {@code tokens} from {@code pools}, consuming {@code pages} of the reservation. */
    int[] extend(long tokens, long pages, KvPools pools) {
        long from = table.seqLen();
        int[] fresh = table.extend(tokens, pools);
        for (long t = from; t < from + tokens; t++) {
            reqToToken[(int) t] = table.loc(t);
        }
        reservedPages -= pages;
        return fresh;
    }

    /** Marks the request released; returns the pages it still had reserved, which go back to the group. */
    long markReleased() {
        released = true;
        long unused = reservedPages;
        reservedPages = 0;
        return unused;
    }

    /** {@return whether its first chunk was admitted} */
    boolean started() {
        return started;
    }

    /** {@return pages reserved for chunks not yet allocated} */
    long reservedPages() {
        return reservedPages;
    }

    /** {@return cached pages at the head of its table, locked while it runs} */
    int prefixPages() {
        return prefixPages;
    }

    /** {@return tokens handed to batches so far} */
    long admittedTokens() {
        return admittedTokens;
    }

    /** Marks the request's pages lost with a rank's pool ({@code why}); the first loss stays. */
    synchronized void lose(RuntimeException why) {
        if (lost == null) {
            lost = why;
        }
    }

    /** {@return why some of the request's pages were lost with a rank's pool, or null while none was} */
    public @org.jspecify.annotations.Nullable RuntimeException lost() {
        return lost;
    }

    /** {@return the request} */
    public PrefillRequest request() {
        return request;
    }

    /** {@return the request's id} */
    public String id() {
        return request.id();
    }

    /** {@return chained hashes of the request's full pages (empty when neither cache is on)} */
    public List<byte[]> pageHashes() {
        return pageHashes;
    }

    /** {@return pages loaded from the host cache instead of computed} */
    public int hostPages() {
        return hostPages;
    }

    /** {@return tokens reused instead of computed: the device prefix hit and the pages loaded from the host cache} */
    public int reusedTokens() {
        return (prefixPages + hostPages) * table.pageSize();
    }

    /**
     * Whether a chunk starting at {@code chunkStart} is the request's first, which also loads its host-hit pages.
     *
     * @param chunkStart the chunk's first token
     * @return whether it loads them
     */
    public boolean loadsHostPages(long chunkStart) {
        return hostPages > 0 && chunkStart == (long) reusedTokens();
    }

    /** Chained hash keys of the request's full pages (empty when prefix caching is off). */
    List<String> pageKeys() {
        return pageKeys;
    }

    /** {@return tokens whose pages are allocated (prefix included): the start of the next chunk} */
    public long filledTokens() {
        return table.seqLen();
    }

    /** {@return tokens not yet handed to any batch} */
    public long remainingTokens() {
        return request.seqLen() - admittedTokens;
    }

    /** {@return tokens of the device prefix hit (locked cached pages at the head of the table)} */
    public int prefixTokens() {
        return prefixPages * table.pageSize();
    }

    /** {@return the live page table (stages read it; only the group's accounting changes it)} */
    public RequestPageTable table() {
        return table;
    }

    /** {@return a copy of the logical page table {@code P}} */
    public int[] pageTable() {
        return table.pages();
    }

    /**
     * The logical KV loc of token {@code t} (contract §3.5).
     *
     * @param t a token position
     * @return its loc
     */
    public long loc(long t) {
        return reqToToken[Math.toIntExact(t)];
    }

    /**
     * A copy of the locs of tokens {@code [from, to)} of the ReqToTokenPool row.
     *
     * @param from the first token
     * @param to   one past the last
     * @return the locs
     */
    public long[] locs(long from, long to) {
        return Arrays.copyOfRange(reqToToken, Math.toIntExact(from), Math.toIntExact(to));
    }

    /** Replaces token {@code t}'s loc, as a faulty stage would: the seam tests corrupt a row through. */
    void overwriteLoc(int t, long loc) {
        reqToToken[t] = loc;
    }

    /**
     * Claims the request's one result. A request can fail twice when two of its chunks are in
     * different batches (a rank lost under the first, the second then working on released pages):
     * only the first claim reports.
     *
     * @return true the first time only
     */
    public boolean claimResult() {
        return resultClaimed.compareAndSet(false, true);
    }

    /** {@return true once its pages went back to the group (finished, failed or cancelled)} */
    public boolean isReleased() {
        return released;
    }
}
