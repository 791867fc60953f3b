package org.kvflow.operators.materialize;

import java.util.Map;
import org.kvflow.pages.PageStore;

/**
 * A batch's full view (contract §7): the pages of its referenced set {@code R} gathered into one
 * store, compact page {@code k} holding logical page {@code R[k]} (first-occurrence order, contract
 * §7.1). Read-only once built; its pages live in the rank stores' memory until {@link #close()}.
 *
 * @param store           the view's pages
 * @param referencedPages the referenced set {@code R}, in first-occurrence order
 * @param viewPageOf      the view page of each logical page of {@code R}
 * @param ownsStore       whether the store is the view's own (gathered) or the ranks' virtual view, read in place
 */
public record FullView(PageStore store, long[] referencedPages, Map<Long, Integer> viewPageOf, boolean ownsStore) implements AutoCloseable {
    /**
     * A view gathered into a store of its own, freed with the view.
     *
     * @param store           the view's pages
     * @param referencedPages the referenced set {@code R}, in first-occurrence order
     * @param viewPageOf      the view page of each logical page of {@code R}
     */
    public FullView(PageStore store, long[] referencedPages, Map<Long, Integer> viewPageOf) {
        this(store, referencedPages, viewPageOf, true);
    }

    /**
     * The view page holding logical page {@code page}.
     *
     * @param page a logical page of the batch's referenced set
     * @return its view page
     */
    public int viewPage(long page) {
        Integer k = viewPageOf.get(page);
        if (k == null) {
            throw new IllegalArgumentException("page " + page + " is not in this view");
        }
        return k;
    }

    /** Frees the view's pages (a view read in place through the ranks' virtual view frees nothing). */
    @Override
    public void close() {
        if (ownsStore) {
            store.close();
        }
    }
}
