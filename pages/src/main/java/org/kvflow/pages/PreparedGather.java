package org.kvflow.pages;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A {@link PageStore#gatherFrom} of the same pages run again and again (a view gathered anew from
 * the same owners' pages): every list is checked and copied once, here; on a memory that keeps
 * copies ready ({@link PreparedCopies}: {@code cuda}) each {@link #run} is one launch with nothing
 * checked or uploaded before it, elsewhere the gather runs as ever on the kept lists. The bytes a
 * run moves across the host count for the destination's stage ({@link PageStore#countedAs}).
 * Closing frees what the memory kept; the stores stay. Used by one thread at a time.
 */
public final class PreparedGather implements AutoCloseable {
    private final PageStore dst;
    private final List<PageStore> sources;
    private final List<long[]> srcPages;
    private final List<long[]> dstPages;
    private final PreparedCopies.@Nullable Prepared prepared;

    private PreparedGather(PageStore dst, List<PageStore> sources, List<long[]> srcPages, List<long[]> dstPages,
                           PreparedCopies.@Nullable Prepared prepared) {
        this.dst = dst;
        this.sources = sources;
        this.srcPages = srcPages;
        this.dstPages = dstPages;
        this.prepared = prepared;
    }

    /**
     * {@code dst.gatherFrom(sources, srcPages, dstPages)}, prepared: checked now, as the gather
     * checks, with copies of the lists.
     *
     * @throws IncompatibleStoresException if a source differs in layout or page size
     * @throws PageOutOfRangeException naming the first page outside its store
     */
    public static PreparedGather of(PageStore dst, List<PageStore> sources, List<long[]> srcPages, List<long[]> dstPages) {
        List<long[]> src = srcPages.stream().map(long[]::clone).toList();
        List<long[]> at = dstPages.stream().map(long[]::clone).toList();
        StoreGather.check(dst, sources, src, at);
        List<PageStore> kept = List.copyOf(sources);
        boolean oneMemory = kept.stream().allMatch(s -> s.memory() == dst.memory());
        @Nullable PreparedCopies ready = oneMemory ? dst.memory().capability(PreparedCopies.class).orElse(null) : null;
        PreparedCopies.@Nullable Prepared prepared = ready == null ? null : ready.prepare(StoreGather.batch(dst, kept, src, at, KvComponent.values()));
        return new PreparedGather(dst, kept, src, at, prepared);
    }

    /** Gathers the same pages again, waited for. */
    public void run() {
        PreparedCopies.@Nullable Prepared ready = prepared;
        if (ready == null) {
            StoreGather.into(dst, sources, srcPages, dstPages, KvComponent.values());
        } else {
            dst.countCrossed(ready.run());
        }
    }

    /** Whether runs are one prepared launch of the memory (else plain gathers). */
    public boolean kept() {
        return prepared != null;
    }

    @Override
    public void close() {
        PreparedCopies.@Nullable Prepared ready = prepared;
        if (ready != null) {
            ready.close();
        }
    }

    @Override
    public String toString() {
        return "PreparedGather[" + sources.size() + " sources into " + dst.label() + ", " + dstPages.stream().mapToInt(p -> p.length).sum()
                + " pages" + (prepared == null ? ", plain" : "") + "]";
    }
}
