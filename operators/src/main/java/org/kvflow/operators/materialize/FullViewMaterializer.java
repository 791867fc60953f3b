package org.kvflow.operators.materialize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.kvflow.core.DebugMode;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.core.validate.PageGroups;
import org.kvflow.kernels.gather.KvPageStore;
import org.kvflow.operators.KvGroup;
import org.kvflow.operators.RequestState;

/**
 * Builds full views (SPEC §7 steps 1–4). The referenced pages of a request come from its
 * request-to-token row, validated as page-aligned groups first (SPEC §9); the gather then reads
 * each page from its owner (shared KV) or from the local copy (replicated), never writing to
 * owner storage (I-MAT-3).
 */
public final class FullViewMaterializer {
    private final KvGroup group;

    public FullViewMaterializer(KvGroup group) {
        this.group = group;
    }

    /**
     * The logical pages a request references, in position order, read from its request-to-token
     * row: full pages are validated as aligned contiguous groups; the partially filled tail page
     * (if any) is taken from its first token's loc.
     *
     * @throws org.kvflow.core.validate.PageGroupValidationException naming the request and the bad group
     */
    public long[] referencedPages(RequestState state) {
        int ps = group.config().pageSize();
        long filled = state.filledTokens();
        int fullTokens = (int) (filled - filled % ps);
        long[] locs = state.reqToToken();
        PageGroups.validatePageAlignedTokenIndices(Arrays.copyOf(locs, fullTokens), ps, "materialize req " + state.id());
        int pages = (int) ((filled + ps - 1) / ps);
        long[] referenced = new long[pages];
        for (int pos = 0; pos < pages; pos++) {
            referenced[pos] = locs[pos * ps] / ps;
        }
        return referenced;
    }

    /** Gathers the union of {@code tables} (batch order, then position order) into a new view. */
    public FullView gather(List<long[]> tables) {
        Map<Long, Integer> compact = new LinkedHashMap<>();
        for (long[] table : tables) {
            for (long page : table) {
                compact.putIfAbsent(page, compact.size());
            }
        }
        KvPageStore view = new KvPageStore(group.rankStore(0).layout(), group.config().pageSize(), compact.size());
        OwnershipMap ownership = group.ownership();
        int sources = group.layout() == PoolLayout.SHARED ? ownership.cpSize() : 1;
        List<List<long[]>> bySource = new ArrayList<>(sources);
        for (int r = 0; r < sources; r++) {
            bySource.add(new ArrayList<>());
        }
        for (Map.Entry<Long, Integer> e : compact.entrySet()) {
            int page = Math.toIntExact(e.getKey());
            int source = sources == 1 ? 0 : ownership.owner(page);
            bySource.get(source).add(new long[] {group.physicalPage(page), e.getValue()});
        }
        for (int r = 0; r < sources; r++) {
            List<long[]> pairs = bySource.get(r);
            long[] src = pairs.stream().mapToLong(p -> p[0]).toArray();
            long[] dst = pairs.stream().mapToLong(p -> p[1]).toArray();
            view.copyPagesFrom(group.rankStore(r), src, dst);
        }
        long[] referenced = compact.keySet().stream().mapToLong(Long::longValue).toArray();
        KvPageStore reference = group.reference();
        if (reference != null) {
            compact.forEach((page, k) -> checkAgainstReference(view, k, reference, page));
        }
        return new FullView(view, referenced, compact);
    }

    /** Debug mode: view page {@code k} holds the bytes the replicated reference holds for logical page {@code page}, every layer. */
    private void checkAgainstReference(KvPageStore view, int k, KvPageStore reference, long page) {
        int mla = view.mlaPageBytes();
        int index = view.indexPageBytes();
        for (int l = 0; l < view.layers(); l++) {
            int layer = l;
            DebugMode.check(() -> Arrays.equals(view.mla(layer), k * mla, (k + 1) * mla, reference.mla(layer), (int) page * mla, (int) (page + 1) * mla)
                    && Arrays.equals(view.index(layer), k * index, (k + 1) * index, reference.index(layer), (int) page * index,
                    (int) (page + 1) * index),
                    () -> "full view page " + k + " (logical page " + page + ", owner rank " + group.ownership().owner((int) page)
                            + ") differs from the replicated reference in layer " + layer);
        }
    }
}
