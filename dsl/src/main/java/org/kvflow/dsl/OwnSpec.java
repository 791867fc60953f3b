package org.kvflow.dsl;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;

/**
 * The ownership stage (contract §4): shared KV by page id, or the replicated baseline, over per-rank
 * pools sized in pages or from a byte budget (the page size comes from the config, the row size
 * from the model); optionally keeping finished pages as a device prefix cache. Made by
 * {@link Ownership}.
 *
 * @param layout        shared KV or the replicated baseline
 * @param pagesPerRank  pages per rank's pool, or null when sized by budget
 * @param budgetBytes   bytes per rank's pool, or null when sized in pages
 * @param prefixCaching whether finished pages stay as a device prefix cache
 * @param warmJournal   a HiCache journal each run's prefix cache starts from, or null
 * @param warmPrompts   the prompts whose full pages are restored from it at the start of each run
 * @param rankProcesses whether each CP rank's pool lives in a rank process of its own, opened in place here
 * @param hostTierPages pages of a pages-only host tier beside the device prefix cache, or 0 for none
 */
public record OwnSpec(PoolLayout layout, @Nullable Integer pagesPerRank, @Nullable Long budgetBytes, boolean prefixCaching,
                      @Nullable Path warmJournal, List<int[]> warmPrompts, boolean rankProcesses, int hostTierPages) implements StageSpec {
    /** Checks that the layout is given; copies the prompts. */
    public OwnSpec {
        Objects.requireNonNull(layout, "layout");
        warmPrompts = warmPrompts.stream().map(int[]::clone).toList();
    }

    /** Pools of {@code layout}, unsized, with or without a prefix cache, and no warm start. */
    OwnSpec(PoolLayout layout, boolean prefixCaching) {
        this(layout, null, null, prefixCaching, null, List.of(), false, 0);
    }

    /**
     * Pools sized in pages.
     *
     * @param pages pages per rank
     * @return the new stage
     */
    public OwnSpec pagesPerRank(int pages) {
        return new OwnSpec(layout, pages, null, prefixCaching, warmJournal, warmPrompts, rankProcesses, hostTierPages);
    }

    /**
     * Pools sized from a per-rank byte budget (contract §3.4); needs the flow's model for the page bytes.
     *
     * @param bytes bytes per rank
     * @return the new stage
     */
    public OwnSpec budgetBytes(long bytes) {
        return new OwnSpec(layout, null, bytes, prefixCaching, warmJournal, warmPrompts, rankProcesses, hostTierPages);
    }

    /**
     * Whether finished requests' pages stay as a device prefix cache.
     *
     * @param on keep them (the default) or free them
     * @return the new stage
     */
    public OwnSpec prefixCaching(boolean on) {
        return new OwnSpec(layout, pagesPerRank, budgetBytes, on, warmJournal, warmPrompts, rankProcesses, hostTierPages);
    }

    /**
     * A warm start: at the start of each run, before any request is admitted, the full pages of
     * {@code prompts} that the HiCache journal in {@code journal} holds are restored straight into
     * the rank stores and put into the device prefix cache (each prompt's cached prefix ends at its
     * first page the journal does not hold whole, or where the pools are full). Needs prefix caching and the flow's model, and a
     * journal of the model's layout and the config's page size.
     *
     * @param journal the journal directory (a kvflow HiCache journal)
     * @param prompts the prompts' token ids
     * @return the new stage
     */
    public OwnSpec warmStartFrom(Path journal, List<int[]> prompts) {
        return new OwnSpec(layout, pagesPerRank, budgetBytes, prefixCaching, Objects.requireNonNull(journal, "journal"), prompts, rankProcesses,
                hostTierPages);
    }

    /**
     * Each CP rank's pool in a process of its own (as SGLang runs a process per GPU): each run
     * starts one rank process per rank, which allocates its pool in the flow's memory. On
     * {@code device("cuda")} each exports its pool by CUDA IPC and the pipeline opens the pools in
     * place; elsewhere (the Java heap) the pipeline reaches them by staged copies over the ranks'
     * control connections. Every stage runs on them as on pools of its own.
     *
     * @return the new stage
     */
    public OwnSpec inRankProcesses() {
        return new OwnSpec(layout, pagesPerRank, budgetBytes, prefixCaching, warmJournal, warmPrompts, true, hostTierPages);
    }

    /**
     * A host (L2) tier of {@code pages} pages beside the device prefix cache, for flows that plan
     * pages only (no model): the pages the device cache evicts go there, the least recently used
     * leaving first when it is full, and a later request loads the pages right after its device
     * prefix from it instead of computing them ({@link RunPools#hostTokensServed()}). One tier for
     * the whole CP group, as host memory is the instance's. A flow with KV bytes takes its host
     * pages from a journal instead ({@link #warmStartFrom}).
     *
     * @param pages pages the tier holds, {@code >= 1}
     * @return the new stage
     */
    public OwnSpec hostTier(int pages) {
        return new OwnSpec(layout, pagesPerRank, budgetBytes, prefixCaching, warmJournal, warmPrompts, rankProcesses, pages);
    }

    /** The per-rank capacity at page size {@code pageSize}; {@code kv} is needed for a byte budget. */
    PoolCapacity capacity(int pageSize, @Nullable KvLayout kv) {
        if (budgetBytes != null) {
            return PoolCapacity.fromBudget(budgetBytes, Objects.requireNonNull(kv, "a byte budget needs a model"), pageSize);
        }
        return PoolCapacity.ofPages(Objects.requireNonNull(pagesPerRank, "pagesPerRank"), pageSize);
    }

    @Override public String stage() { return "own"; }
    @Override public int rank() { return 2; }

    @Override
    public String toString() {
        String size = pagesPerRank != null ? pagesPerRank + " pages per rank" : budgetBytes != null ? budgetBytes + " B per rank" : "no size";
        return "own(" + (layout == PoolLayout.SHARED ? "byPageId" : "replicated") + ", " + size + (prefixCaching ? ", prefix cache" : "")
                + (warmJournal == null ? "" : ", warm start of " + warmPrompts.size() + " prompts from " + warmJournal)
                + (rankProcesses ? ", in rank processes" : "") + (hostTierPages > 0 ? ", host tier of " + hostTierPages + " pages" : "") + ")";
    }
}
