package org.kvflow.decode;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.pool.PageAllocator;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;

/**
 * A non-CP decode instance's receiving side (contract §8.1): its own allocator and full-layout KV
 * store, one session per request with its page list {@code D}. Pages are accepted only for a
 * known request and only onto that request's decode pages, each position once (I-PD-2, I-PD-3);
 * a request is ready once every prefill rank completed (I-PD-4) and every one of its positions
 * was written. Refused pages are counted and never written. Ranks outside the request's senders
 * are refused before anything is recorded. Thread-safe: pages are checked and claimed under the
 * receiver's lock, and their bytes are written outside it, so ranks sending on their own
 * connections write side by side; a request released while its pages are being written gives its
 * pages back to the pool only once the last write ended.
 */
public final class DecodeReceiver {
    private final PageAllocator allocator;
    private final @Nullable PageStore store;
    private final int pageSize;
    private final @Nullable KvLayout layout;
    private final Map<String, Session> sessions = new HashMap<>();
    private final LongSupplier nanoClock;
    private long rejectedPages;
    private long expiredSessions;

    private static final class Session {
        final long[] pages;
        final Map<Long, Integer> positionOf = new HashMap<>();
        final BitSet written = new BitSet();
        /** Positions whose bytes are being written now, outside the lock. */
        final BitSet claimed = new BitSet();
        final BitSet completed = new BitSet();
        final int senders;
        /** Writes in progress; a released session's pages go back to the pool when it reaches 0. */
        int writers;
        boolean released;
        /** When the request became ready ({@link #nanoClock}), or -1 while it is being received. */
        long readySince = -1;

        boolean ready() {
            return completed.cardinality() == senders && written.cardinality() == pages.length;
        }

        Session(long[] pages, int senders) {
            this.pages = pages;
            this.senders = senders;
            for (int pos = 0; pos < pages.length; pos++) {
                positionOf.put(pages[pos], pos);
            }
        }
    }

    /**
     * @param pages    decode pool size in pages (page 0 is padding)
     * @param pageSize tokens per page
     * @param layout   row layout of the KV bytes, or {@code null} to track pages only
     */
    public DecodeReceiver(int pages, int pageSize, @Nullable KvLayout layout) {
        this(pages, pageSize, layout, System::nanoTime);
    }

    /**
     * A receiver whose ready requests age by {@code nanoClock} ({@link #expireReady}).
     *
     * @param pages     decode pool size in pages (page 0 is padding)
     * @param pageSize  tokens per page
     * @param layout    row layout of the KV bytes, or {@code null} to track pages only
     * @param nanoClock a monotonic clock in nanoseconds
     */
    public DecodeReceiver(int pages, int pageSize, @Nullable KvLayout layout, LongSupplier nanoClock) {
        this(pages, pageSize, layout, nanoClock, null);
    }

    /**
     * A receiver whose pool lies in {@code memory} (device memory, say), which the caller closes
     * after the receiver: every page it accepts is written there.
     *
     * @param pages    decode pool size in pages (page 0 is padding)
     * @param pageSize tokens per page
     * @param layout   row layout of the KV bytes
     * @param memory   where the pool's buffers are allocated
     */
    public DecodeReceiver(int pages, int pageSize, KvLayout layout, PageMemory memory) {
        this(pages, pageSize, Objects.requireNonNull(layout, "layout"), System::nanoTime, Objects.requireNonNull(memory, "memory"));
    }

    private DecodeReceiver(int pages, int pageSize, @Nullable KvLayout layout, LongSupplier nanoClock, @Nullable PageMemory memory) {
        this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
        this.allocator = new PageAllocator("decode pool", pages, pageSize);
        this.store = layout == null ? null : memory == null ? PageStore.onHeap("decode pool", layout, pageSize, pages)
                : PageStore.allocate(memory, "decode pool", layout, pageSize, pages);
        this.pageSize = pageSize;
        this.layout = layout;
    }

    public int pageSize() {
        return pageSize;
    }

    /** The row layout it stores, or null when it tracks pages only. */
    public @Nullable KvLayout layout() {
        return layout;
    }

    /**
     * CRC32C of a request's decode KV, valid rows only (I-PD-1): for each position and layer the
     * MLA rows of the tokens below {@code seqLen}, and the indexer data and scales of those tokens.
     * Two receivers that hold the same KV give the same digest whatever their page ids.
     */
    public long digest(String requestId, long seqLen) {
        return digest(requestId, seqLen, new java.util.zip.CRC32C());
    }

    /**
     * {@link #digest(String, long)} into {@code crc}. The request's page list is read under the
     * receiver's lock and the bytes are summed outside it, so a peer asking for digests of large
     * requests does not hold up the transfers of others (a request released meanwhile gives a
     * digest of whatever its pages then hold).
     */
    long digest(String requestId, long seqLen, java.util.zip.Checksum crc) {
        long[] pages;
        synchronized (this) {
            Session session = sessions.get(requestId);
            if (session == null) {
                throw new TransferRejectedException(requestId, "unknown request");
            }
            pages = session.pages.clone();
        }
        PageStore kv = store();
        KvLayout rows = kv.layout();
        int rowBytes = rows.mlaRowBytes();
        int dim = rows.shape().indexDim();
        int scaleBytes = KvLayout.SCALE_BYTES * KvLayout.tiles(dim);
        for (int pos = 0; pos < pages.length; pos++) {
            int valid = (int) Math.min(pageSize, seqLen - (long) pos * pageSize);
            int page = Math.toIntExact(pages[pos]);
            for (int l = 0; l < kv.layers(); l++) {
                kv.checksum(l, KvComponent.MLA, (long) page * kv.mlaPageBytes(), valid * rowBytes, crc);
                long indexPage = (long) page * kv.indexPageBytes();
                kv.checksum(l, KvComponent.INDEX, indexPage, valid * dim, crc);
                kv.checksum(l, KvComponent.INDEX, indexPage + (long) pageSize * dim, valid * scaleBytes, crc);
            }
        }
        return crc.getValue();
    }

    /**
     * Opens a request of {@code pageCount} decode pages sent by {@code senders} prefill ranks.
     *
     * @throws TransferRejectedException if it is open already, or a count is outside its range
     * @throws DecodePoolFullException if the pool has fewer free pages than it needs now
     */
    public synchronized long[] open(String requestId, int pageCount, int senders) {
        if (sessions.containsKey(requestId)) {
            throw new TransferRejectedException(requestId, "a request of that id is open already (ids are unique among open requests, across clients)");
        }
        if (pageCount < 1 || pageCount > allocator.usablePages()) {
            throw new TransferRejectedException(requestId, pageCount + " pages outside [1, " + allocator.usablePages() + "]");
        }
        if (senders < 1) {
            throw new TransferRejectedException(requestId, senders + " senders; at least 1");
        }
        if (pageCount > allocator.freePages()) {
            throw new DecodePoolFullException(requestId, pageCount, allocator.freePages());
        }
        long[] pages = java.util.Arrays.stream(allocator.allocate(pageCount)).asLongStream().toArray();
        sessions.put(requestId, new Session(pages, senders));
        return pages.clone();
    }

    /** Writes received page bytes into decode pages, once {@link #accept(String, int, long[], PageWriter)} has checked them. */
    @FunctionalInterface
    public interface PageWriter {
        /** Fills decode pages {@code dstPages} of {@code store} (every layer, both pools). */
        void write(PageStore store, long[] dstPages);
    }

    /** Accepts pages {@code srcPages} of a prefill rank's {@code source} (null: placements only) for decode pages {@code dstPages}. */
    public void accept(String requestId, int rank, long[] srcPages, long[] dstPages, @Nullable PageStore source) {
        accept(requestId, rank, dstPages, source == null ? null : (store, dst) -> store.copyPagesFrom(source, srcPages, dst));
    }

    /**
     * Accepts pages for decode pages {@code dst} of a request: all are checked (known request,
     * each a page of the request, no position twice) before {@code writer} runs; a refusal writes
     * nothing. A null writer records the placement only.
     */
    public void accept(String requestId, int rank, long[] dst, @Nullable PageWriter writer) {
        Session session;
        BitSet positions;
        synchronized (this) {
            session = sessions.get(requestId);
            positions = claim(session, requestId, rank, dst);
            session.claimed.or(positions);
            session.writers++;
        }
        boolean done = false;
        try {
            if (store != null && writer != null) {
                writer.write(store, dst);
            }
            done = true;
        } finally {
            synchronized (this) {
                session.claimed.andNot(positions);
                if (done) {
                    session.written.or(positions);
                    noteReady(session);
                }
                if (--session.writers == 0 && session.released) {
                    free(session);
                }
            }
        }
    }

    /** The positions of {@code dst} in the request, after every check; a refusal counts the pages and records nothing. */
    private BitSet claim(@Nullable Session session, String requestId, int rank, long[] dst) {
        if (session == null) {
            rejectedPages += dst.length;
            throw new TransferRejectedException(requestId, "unknown request (rank " + rank + ", " + dst.length + " pages)");
        }
        if (rank < 0 || rank >= session.senders) {
            rejectedPages += dst.length;
            throw new TransferRejectedException(requestId, "pages from rank " + rank + ", outside [0, " + session.senders + ")");
        }
        BitSet positions = new BitSet();
        for (long page : dst) {
            Integer pos = session.positionOf.get(page);
            if (pos == null || session.written.get(pos) || session.claimed.get(pos) || positions.get(pos)) {
                rejectedPages += dst.length;
                throw new TransferRejectedException(requestId, pos == null
                        ? "decode page " + page + " is not one of its pages (rank " + rank + ")"
                        : "position " + pos + " written twice (rank " + rank + ")");
            }
            positions.set(pos);
        }
        return positions;
    }

    public synchronized void complete(String requestId, int rank) {
        Session session = sessions.get(requestId);
        if (session == null) {
            throw new TransferRejectedException(requestId, "completion from rank " + rank + " for an unknown request");
        }
        if (rank < 0 || rank >= session.senders) {
            throw new TransferRejectedException(requestId, "completion from rank " + rank + ", outside [0, " + session.senders + ")");
        }
        if (session.completed.get(rank)) {
            throw new TransferRejectedException(requestId, "rank " + rank + " completed twice");
        }
        session.completed.set(rank);
        noteReady(session);
    }

    private void noteReady(Session session) {
        if (session.readySince < 0 && session.ready()) {
            session.readySince = nanoClock.getAsLong();
        }
    }

    /** All prefill ranks completed this request, and every position of it was written and verified. */
    public synchronized boolean isReady(String requestId) {
        Session session = sessions.get(requestId);
        return session != null && session.ready();
    }

    /** Decode pages the pool can give one request: the most a frame may name for a request not open. */
    public int capacityPages() {
        return allocator.usablePages();
    }

    /** Decode pages a request holds, or 0 when it is not open: what a frame about it may name. */
    public synchronized int pageCount(String requestId) {
        Session session = sessions.get(requestId);
        return session == null ? 0 : session.pages.length;
    }

    /** Positions written so far. */
    public synchronized int writtenPages(String requestId) {
        Session session = sessions.get(requestId);
        return session == null ? 0 : session.written.cardinality();
    }

    /** The request's decode page list {@code D}. */
    public synchronized long[] pages(String requestId) {
        Session session = sessions.get(requestId);
        if (session == null) {
            throw new TransferRejectedException(requestId, "unknown request");
        }
        return session.pages.clone();
    }

    /** The decode KV bytes (full layout, indexed by decode page). */
    public PageStore store() {
        if (store == null) {
            throw new IllegalStateException("this receiver tracks pages only");
        }
        return store;
    }

    /** Decode is done with the request: its pages go back to the decode pool (once no write to them is in progress). */
    public synchronized void release(String requestId) {
        Session session = sessions.remove(requestId);
        if (session != null) {
            session.released = true;
            if (session.writers == 0) {
                free(session);
            }
        }
    }

    private void free(Session session) {
        allocator.free(java.util.Arrays.stream(session.pages).mapToInt(Math::toIntExact).toArray());
    }

    /** Pages refused since start. */
    public synchronized long rejectedPages() {
        return rejectedPages;
    }

    /** {@return requests open: being received or ready and not yet released} */
    public synchronized int openSessions() {
        return sessions.size();
    }

    /**
     * Frees every request that has been ready for at least {@code ttl} without anyone releasing it
     * (a decode consumer that never came for it), and counts it.
     *
     * @param ttl how long a ready request may wait
     * @return the ids freed, in no order
     */
    public synchronized List<String> expireReady(Duration ttl) {
        long now = nanoClock.getAsLong();
        List<String> expired = new ArrayList<>();
        for (Map.Entry<String, Session> e : sessions.entrySet()) {
            long since = e.getValue().readySince;
            if (since >= 0 && now - since >= ttl.toNanos()) {
                expired.add(e.getKey());
            }
        }
        expired.forEach(this::release);
        expiredSessions += expired.size();
        return expired;
    }

    /** Ready requests freed by {@link #expireReady} since start. */
    public synchronized long expiredSessions() {
        return expiredSessions;
    }

    /** Open sessions whose request is ready: every rank completed, every page written. */
    public synchronized int readySessions() {
        return (int) sessions.values().stream().filter(Session::ready).count();
    }

    /** Open sessions still waiting for a prefill rank's completion. */
    public synchronized long incompleteSessions() {
        return sessions.values().stream().filter(s -> s.completed.cardinality() < s.senders).count();
    }

    /** Decode pages not free: held by open sessions. */
    public synchronized int pagesInUse() {
        return allocator.allocatedPages();
    }
}
