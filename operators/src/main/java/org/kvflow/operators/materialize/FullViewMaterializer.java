package org.kvflow.operators.materialize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvflow.core.DebugMode;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.core.validate.PageGroups;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageStore;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.group.RankStores;
import org.kvflow.operators.group.RequestState;

/**
 * Builds full views (contract §7 steps 1–4). The referenced pages of a request come from its
 * request-to-token row, validated as page-aligned groups first (contract §9); the gather then reads
 * each page from its owner (shared KV) or from the local copy (replicated), never writing to
 * owner storage (I-MAT-3).
 */
public final class FullViewMaterializer {
    private final KvGroup group;
    private final boolean inPlace;

    /**
     * Full views of the batches of one group, gathered.
     *
     * @param group the group whose rank stores the views are gathered from
     */
    public FullViewMaterializer(KvGroup group) {
        this(group, false);
    }

    /**
     * Full views of the batches of one group, gathered or, with {@code inPlace}, read in place
     * through the rank stores' virtual view ({@link RankStores#virtualView}): nothing is copied and
     * a view page is the owner's own page.
     *
     * @param group   the group whose rank stores the views come from
     * @param inPlace read in place instead of gathering (shared KV on pools with a virtual view)
     */
    public FullViewMaterializer(KvGroup group, boolean inPlace) {
        this.group = group;
        this.inPlace = inPlace;
    }

    /**
     * The logical pages a request references, in position order, read from its request-to-token
     * row: full pages are validated as aligned contiguous groups; the partially filled tail page
     * (if any) is taken from its first token's loc.
     *
     * @param state the request
     * @return its logical pages, by position
     * @throws org.kvflow.core.validate.PageGroupValidationException naming the request and the bad group
     */
    public long[] referencedPages(RequestState state) {
        int ps = group.config().pageSize();
        long filled = state.filledTokens();
        int fullTokens = (int) (filled - filled % ps);
        long[] locs = state.locs(0, filled);
        PageGroups.validatePageAlignedTokenIndices(Arrays.copyOf(locs, fullTokens), ps, "materialize req " + state.id());
        int pages = (int) ((filled + ps - 1) / ps);
        long[] referenced = new long[pages];
        for (int pos = 0; pos < pages; pos++) {
            referenced[pos] = locs[pos * ps] / ps;
        }
        return referenced;
    }

    /**
     * Gathers the union of {@code tables} (batch order, then position order) into a new view, in the rank stores' memory.
     *
     * @param tables the batch's requests' logical pages
     * @return the view; close it
     */
    public FullView gather(List<long[]> tables) {
        Map<Long, Integer> compact = new LinkedHashMap<>();
        for (long[] table : tables) {
            for (long page : table) {
                compact.putIfAbsent(page, compact.size());
            }
        }
        RankStores stores = group.stores().countedAs(MaterializeOperator.STAGE);
        if (inPlace) {
            return readInPlace(stores, compact);
        }
        PageStore first = stores.rank(0);
        PageStore view = PageStore.allocate(stores.memory(), "full view", first.layout(), first.pageSize(), compact.size()).countedAs(stores.stage());
        try {
            int sources = group.layout() == PoolLayout.SHARED ? group.ownership().cpSize() : 1;
            List<List<long[]>> bySource = new ArrayList<>(sources);
            for (int r = 0; r < sources; r++) {
                bySource.add(new ArrayList<>());
            }
            for (Map.Entry<Long, Integer> e : compact.entrySet()) {
                int page = Math.toIntExact(e.getKey());
                bySource.get(stores.holder(page)).add(new long[] {stores.physicalPage(page), e.getValue()});
            }
            List<PageStore> owners = new ArrayList<>();
            List<long[]> srcPages = new ArrayList<>();
            List<long[]> dstPages = new ArrayList<>();
            for (int r = 0; r < sources; r++) {
                List<long[]> pairs = bySource.get(r);
                owners.add(stores.rank(r));
                srcPages.add(pairs.stream().mapToLong(p -> p[0]).toArray());
                dstPages.add(pairs.stream().mapToLong(p -> p[1]).toArray());
            }
            view.gatherFrom(owners, srcPages, dstPages); // every owner in one batch
            PageStore reference = stores.reference();
            if (reference != null) {
                compact.forEach((page, k) -> checkAgainstReference(view, k, reference, page));
            }
        } catch (RuntimeException e) {
            view.close();
            throw e;
        }
        long[] referenced = compact.keySet().stream().mapToLong(Long::longValue).toArray();
        return new FullView(view, referenced, compact);
    }

    /**
     * The view of the referenced pages as pages of the ranks' virtual view: logical page {@code p}
     * is its owner's physical page there, read where it lies.
     */
    private FullView readInPlace(RankStores stores, Map<Long, Integer> compact) {
        if (group.layout() != PoolLayout.SHARED) {
            throw new IllegalStateException("reading in place needs shared KV: replicated ranks hold every page already");
        }
        PageStore virtual = stores.virtualView().orElseThrow(() -> new IllegalStateException(
                "reading in place needs rank pools mapped side by side (rank processes with shareable pools)"));
        Map<Long, Integer> viewPageOf = new LinkedHashMap<>();
        for (Long page : compact.keySet()) {
            viewPageOf.put(page, Math.toIntExact(stores.virtualPage(Math.toIntExact(page))));
        }
        long[] referenced = compact.keySet().stream().mapToLong(Long::longValue).toArray();
        return new FullView(virtual, referenced, viewPageOf, false);
    }

    /** Debug mode: view page {@code k} holds the bytes the replicated reference holds for logical page {@code page}, every layer. */
    private void checkAgainstReference(PageStore view, int k, PageStore reference, long page) {
        for (int l = 0; l < view.layers(); l++) {
            int layer = l;
            DebugMode.check(() -> Arrays.equals(view.readPage(layer, KvComponent.MLA, k), reference.readPage(layer, KvComponent.MLA, page))
                    && Arrays.equals(view.readPage(layer, KvComponent.INDEX, k), reference.readPage(layer, KvComponent.INDEX, page)),
                    () -> "full view page " + k + " (logical page " + page + ", owner rank " + group.ownership().owner((int) page)
                            + ") differs from the replicated reference in layer " + layer);
        }
    }
}
