package org.kvflow.pages;

import java.util.ArrayList;
import java.util.List;
import org.kvflow.core.model.KvLayout;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;

/**
 * Where each CP rank's pool comes from: allocated by this process in its page memory (the
 * default, {@link #inProcess()}), or held by other processes and opened here in place (the
 * {@code ranks} module's rank processes). Either way the pools are {@link PageStore}s of one
 * memory, so every stage runs on them unchanged.
 */
public interface RankPools extends AutoCloseable {
    /**
     * The pools of ranks {@code 0 .. ranks-1}, {@code pagesPerRank} pages of {@code pageSize}
     * tokens each, usable through {@code memory}. On failure nothing stays open.
     *
     * @param memory       the memory the stores are used through
     * @param kv           the KV layout of every page
     * @param ranks        how many ranks
     * @param pageSize     tokens per page
     * @param pagesPerRank pages of each rank's pool
     * @return the stores, rank by rank
     */
    List<PageStore> open(PageMemory memory, KvLayout kv, int ranks, int pageSize, int pagesPerRank);

    /**
     * Every rank's pool side by side in one store of the memory, where the source can map them so
     * (rank processes with shareable pools): rank {@code r}'s page {@code k} is page
     * {@code r·(pages() ÷ ranks) + k}, read in place with nothing copied. Valid while the pools
     * are open; empty by default.
     *
     * @return the view, or empty
     */
    default java.util.Optional<PageStore> virtualView() {
        return java.util.Optional.empty();
    }

    /** What the holder of the stores hears from their source after {@link #open}: a rank's pool lost, and a fresh pool replacing it. */
    interface Listener {
        /**
         * Rank {@code rank}'s pool is gone with every page on it; its store fails every use with {@code why}.
         *
         * @param rank the rank
         * @param why  the loss, as uses of the store throw it
         */
        void lost(int rank, RuntimeException why);

        /**
         * Rank {@code rank} serves again with a fresh, zeroed pool: {@code fresh} is its store from now on.
         *
         * @param rank  the rank
         * @param fresh its new store
         */
        void replaced(int rank, PageStore fresh);

        /**
         * Rank {@code rank}, lost, is being started again in the background: {@link #replaced} or
         * {@link #gaveUp} follows. Nothing by default.
         *
         * @param rank the rank
         */
        default void restarting(int rank) {
        }

        /**
         * The background restart of rank {@code rank} stopped trying; the rank stays lost. Nothing by default.
         *
         * @param rank the rank
         * @param why  the last attempt's failure
         */
        default void gaveUp(int rank, RuntimeException why) {
        }
    }

    /**
     * Tells {@code listener} of every loss and replacement from now on; a source whose pools cannot
     * be lost (pools of this process) never calls it.
     *
     * @param listener what to tell
     */
    default void listen(Listener listener) {
        java.util.Objects.requireNonNull(listener, "listener");
    }

    /** Releases what {@link #open} started beyond the stores themselves (which their holder closes); idempotent. */
    @Override
    void close();

    /**
     * Pools allocated by this process in the memory it is given.
     *
     * @return the source
     */
    static RankPools inProcess() {
        return new RankPools() {
            @Override
            public List<PageStore> open(PageMemory memory, KvLayout kv, int ranks, int pageSize, int pagesPerRank) {
                List<PageStore> all = new ArrayList<>();
                try {
                    for (int r = 0; r < ranks; r++) {
                        all.add(PageStore.allocate(memory, "rank " + r, kv, pageSize, pagesPerRank));
                    }
                    return all;
                } catch (RuntimeException e) {
                    all.forEach(PageStore::close);
                    throw e;
                }
            }

            @Override
            public void close() {
                // the stores are all there is, and their holder closes them
            }

            @Override
            public String toString() {
                return "in-process pools";
            }
        };
    }
}
