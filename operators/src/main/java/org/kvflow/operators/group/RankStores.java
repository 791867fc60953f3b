package org.kvflow.operators.group;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolLayout;
import org.kvflow.pages.HostTraffic;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.OutOfDeviceMemoryException;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.RankPools;

/**
 * Where a CP group's KV bytes live: one {@link PageStore} per rank, all used through one
 * {@link PageMemory} (allocated there, or opened there from rank processes: {@link RankPools}),
 * and in debug mode under shared KV a replicated reference (every row at its logical loc) that
 * full views are checked against. Maps a logical page to the rank that holds it and the physical
 * page there. Stages reach pages only through these stores, each through its own view of them
 * ({@link #countedAs}), so the bytes a stage moves across the host are counted under its name.
 */
public final class RankStores implements AutoCloseable {
    private final PageMemory memory;
    private final OwnershipMap ownership;
    private final PoolLayout layout;
    private final java.util.concurrent.atomic.AtomicReferenceArray<PageStore> stores;
    private final List<java.util.function.BiConsumer<Integer, RuntimeException>> lossListeners;
    /** Lost ranks being started again in the background. */
    private final java.util.Set<Integer> restarting;
    private final List<Runnable> restartListeners;
    private final @Nullable PageStore reference;
    private final RankPools pools;
    /** The stage this view counts under ({@link HostTraffic#UNATTRIBUTED} for the stores themselves). */
    private final String stage;

    /**
     * Allocates {@code pagesPerRank} zeroed pages of {@code kv} for each of the CP group's ranks in
     * {@code memory} (and, in debug mode under shared KV, the heap reference).
     *
     * @param memory       where the stores live
     * @param kv           the KV layout of every page
     * @param ownership    which rank owns each logical page
     * @param layout       shared KV or the replicated baseline
     * @param pagesPerRank pages of each rank's store
     * @return the stores
     * @throws OutOfDeviceMemoryException naming the pools' sizes when the memory cannot hold them; nothing stays allocated
     */
    public static RankStores allocate(PageMemory memory, KvLayout kv, OwnershipMap ownership, PoolLayout layout, int pagesPerRank) {
        return open(RankPools.inProcess(), memory, kv, ownership, layout, pagesPerRank);
    }

    /**
     * One store per CP rank from {@code pools} (allocated here, or opened from rank processes),
     * used through {@code memory}; closing the stores closes {@code pools} too.
     *
     * @param pools        where each rank's pool comes from
     * @param memory       the memory the stores (and the views built from them) are used through
     * @param kv           the KV layout of every page
     * @param ownership    which rank owns each logical page
     * @param layout       shared KV or the replicated baseline
     * @param pagesPerRank pages of each rank's pool
     * @return the stores
     * @throws OutOfDeviceMemoryException naming the pools' sizes when the memory cannot hold them; nothing stays allocated
     */
    public static RankStores open(RankPools pools, PageMemory memory, KvLayout kv, OwnershipMap ownership, PoolLayout layout, int pagesPerRank) {
        return new RankStores(pools, memory, kv, ownership, layout, pagesPerRank);
    }

    private RankStores(RankPools pools, PageMemory memory, KvLayout kv, OwnershipMap ownership, PoolLayout layout, int pagesPerRank) {
        this.memory = Objects.requireNonNull(memory, "memory");
        this.pools = Objects.requireNonNull(pools, "pools");
        this.lossListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
        this.restarting = java.util.concurrent.ConcurrentHashMap.newKeySet();
        this.restartListeners = new java.util.concurrent.CopyOnWriteArrayList<>();
        this.ownership = ownership;
        this.layout = layout;
        int ps = ownership.pageSize();
        List<PageStore> all;
        try {
            all = pools.open(memory, kv, ownership.cpSize(), ps, pagesPerRank);
        } catch (RuntimeException e) {
            pools.close();
            if (e instanceof OutOfDeviceMemoryException full) {
                long perPage = kv.shape().layers() * (kv.mlaPageBytes(ps) + kv.indexPageBytes(ps));
                long asked = ownership.cpSize() * (long) pagesPerRank * perPage;
                throw new OutOfDeviceMemoryException(full.memory(), "the pools of " + ownership.cpSize() + " CP ranks, " + pagesPerRank
                        + " pages of " + ps + " tokens each (" + perPage + " B a page, all layers); " + full.getMessage(), asked, full.freeBytes(), e);
            }
            throw e;
        }
        this.stores = new java.util.concurrent.atomic.AtomicReferenceArray<>(all.toArray(PageStore[]::new));
        pools.listen(new RankPools.Listener() {
            @Override
            public void lost(int rank, RuntimeException why) {
                lossListeners.forEach(l -> l.accept(rank, why));
            }

            @Override
            public void replaced(int rank, PageStore fresh) {
                stores.set(rank, fresh);
                restartEnded(rank);
            }

            @Override
            public void restarting(int rank) {
                restarting.add(rank);
            }

            @Override
            public void gaveUp(int rank, RuntimeException why) {
                restartEnded(rank);
            }
        });
        this.reference = layout == PoolLayout.SHARED && DebugMode.enabled()
                ? PageStore.onHeap("replicated reference", kv, ps, Math.toIntExact((long) ownership.cpSize() * pagesPerRank))
                : null;
        this.stage = HostTraffic.UNATTRIBUTED;
    }

    private RankStores(RankStores of, String stage) {
        this.memory = of.memory;
        this.pools = of.pools;
        this.ownership = of.ownership;
        this.layout = of.layout;
        this.stores = of.stores;
        this.lossListeners = of.lossListeners;
        this.restarting = of.restarting;
        this.restartListeners = of.restartListeners;
        this.reference = of.reference;
        this.stage = stage;
    }

    /**
     * These stores as {@code stage} uses them: every store it hands out (a rank's, the virtual
     * view, the reference) is that store's view for {@code stage} ({@link PageStore#countedAs}),
     * the rank restarted after a loss included. Closing a view closes the stores.
     *
     * @param stage the stage's name
     * @return the view
     */
    public RankStores countedAs(String stage) {
        return new RankStores(this, Objects.requireNonNull(stage, "stage"));
    }

    /**
     * Every rank's pool side by side in one store, where the pools' source offers it
     * ({@link RankPools#virtualView}): the store attention reads in place instead of a gathered view.
     *
     * @return the view, or empty
     */
    public java.util.Optional<PageStore> virtualView() {
        return pools.virtualView().map(view -> view.countedAs(stage));
    }

    /**
     * The page of the {@link #virtualView} that holds logical page {@code page}: its holder's
     * stride plus its physical page there.
     *
     * @param page a logical page
     * @return its page in the virtual view
     * @throws IllegalStateException if there is no virtual view
     */
    public long virtualPage(int page) {
        PageStore view = virtualView().orElseThrow(() -> new IllegalStateException("the rank pools (" + pools + ") have no virtual view"));
        return holder(page) * (long) (view.pages() / ranks()) + physicalPage(page);
    }

    /** {@return the stage this view counts under ({@link HostTraffic#UNATTRIBUTED} for the stores themselves)} */
    public String stage() {
        return stage;
    }

    /** {@return the memory every rank store (and every full view built from them) lives in} */
    public PageMemory memory() {
        return memory;
    }

    /** {@return how many rank stores there are (the CP size)} */
    public int ranks() {
        return stores.length();
    }

    /**
     * Calls {@code listener} with the rank and the error each time a rank's pool is lost (a rank
     * process died): every page stored there is gone. Once the rank is restarted, {@link #rank}
     * returns its fresh store.
     *
     * @param listener what to tell
     */
    public void onLoss(java.util.function.BiConsumer<Integer, RuntimeException> listener) {
        lossListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    /** {@return whether a lost rank is being started again now} */
    public boolean restarting() {
        return !restarting.isEmpty();
    }

    /**
     * Runs {@code listener} each time a lost rank's restart ends, back or given up.
     *
     * @param listener what to run
     */
    public void onRestartEnded(Runnable listener) {
        restartListeners.add(Objects.requireNonNull(listener, "listener"));
    }

    private void restartEnded(int rank) {
        if (restarting.remove(rank)) {
            restartListeners.forEach(Runnable::run);
        }
    }

    /**
     * Rank {@code rank}'s store (the fresh one once a lost rank is restarted).
     *
     * @param rank a CP rank
     * @return its store
     */
    public PageStore rank(int rank) {
        return stores.get(rank).countedAs(stage);
    }

    /** {@return the replicated reference of debug mode, or null when diagnostics are off or KV is replicated} */
    public @Nullable PageStore reference() {
        return reference == null ? null : reference.countedAs(stage);
    }

    /**
     * The rank whose store holds logical page {@code page} (under replicated KV every rank does; rank 0 is named).
     *
     * @param page a logical page
     * @return the rank
     */
    public int holder(int page) {
        return layout == PoolLayout.SHARED ? ownership.owner(page) : 0;
    }

    /**
     * Physical page of logical page {@code page} on its holder's store (its owner's local page, or the id itself when replicated).
     *
     * @param page a logical page
     * @return the physical page
     */
    public long physicalPage(int page) {
        return layout == PoolLayout.SHARED ? ownership.localPage(page) : page;
    }

    /**
     * The ranks that store logical page {@code page}: its owner under shared KV, every rank when replicated.
     *
     * @param page a logical page
     * @return the ranks
     */
    public int[] ranksStoring(int page) {
        if (layout == PoolLayout.SHARED) {
            return new int[] {ownership.owner(page)};
        }
        return java.util.stream.IntStream.range(0, ownership.cpSize()).toArray();
    }

    /** Frees every store. */
    @Override
    public void close() {
        for (int r = 0; r < stores.length(); r++) {
            stores.get(r).close();
        }
        if (reference != null) {
            reference.close();
        }
        pools.close();
    }
}
