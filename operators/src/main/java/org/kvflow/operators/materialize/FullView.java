package org.kvflow.operators.materialize;

import java.util.Map;
import org.kvflow.kernels.gather.KvPageStore;

/**
 * A batch's full view (SPEC §7): the pages of its referenced set {@code R} gathered into one
 * store, compact page {@code k} holding logical page {@code R[k]} (first-occurrence order, SPEC
 * §7.1). Read-only once built.
 */
public record FullView(KvPageStore store, long[] referencedPages, Map<Long, Integer> viewPageOf) {
    /** The view page holding logical page {@code page}. */
    public int viewPage(long page) {
        Integer k = viewPageOf.get(page);
        if (k == null) {
            throw new IllegalArgumentException("page " + page + " is not in this view");
        }
        return k;
    }
}
