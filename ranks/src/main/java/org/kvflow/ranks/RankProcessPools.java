package org.kvflow.ranks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.pages.PageMemory;
import org.kvflow.kernels.pages.PageStore;
import org.kvflow.operators.RankPools;

/**
 * CP ranks' pools held by rank processes ({@link RankProcesses}) and opened in place in the
 * pipeline's memory, as a group's {@link RankPools}: the stages then write, gather, attend on,
 * back up and send the processes' pages as they do a pool of their own. Needs a memory that opens
 * other processes' buffers (the {@code cuda} memory, CUDA IPC on one machine).
 */
public final class RankProcessPools implements RankPools {
    private final String rankMemory;
    private final Duration timeout;
    private final boolean shareable;
    private @Nullable RankProcesses processes;
    private @Nullable PageStore view;

    /**
     * Pools exported by CUDA IPC handles, opened one by one.
     *
     * @param rankMemory the page memory each rank process allocates its pool in ({@code cuda})
     * @param timeout    how long a rank may take to start or to answer
     */
    public RankProcessPools(String rankMemory, Duration timeout) {
        this(rankMemory, timeout, false);
    }

    /**
     * @param rankMemory the page memory each rank process allocates its pool in ({@code cuda})
     * @param timeout    how long a rank may take to start or to answer
     * @param shareable  shareable pools, also mapped side by side in one {@link #virtualView} for attention to read in place
     */
    public RankProcessPools(String rankMemory, Duration timeout, boolean shareable) {
        this.rankMemory = Objects.requireNonNull(rankMemory, "rankMemory");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.shareable = shareable;
    }

    /**
     * Starts one rank process per rank and opens their pools in {@code memory}.
     *
     * @throws RankStartException naming the first rank that did not start, or rank 0 when the pools cannot be opened in place
     */
    @Override
    public synchronized List<PageStore> open(PageMemory memory, KvLayout kv, int ranks, int pageSize, int pagesPerRank) {
        if (processes != null) {
            throw new IllegalStateException("the rank processes are already started");
        }
        RankSpec spec = new RankSpec(0, rankMemory, kv, pageSize, pagesPerRank, shareable);
        RankProcesses started = RankProcesses.start(spec, ranks, memory, timeout);
        if (!started.mapped()) {
            String why = started.unmappedReason();
            started.close();
            throw new RankStartException(0, "its pool cannot be opened in place by the " + memory.name() + " page memory (" + why + ")");
        }
        processes = started;
        if (shareable) {
            PageStore opened = started.openView("virtual view of " + ranks + " rank pools");
            view = opened;
            // the view maps every rank's pages: once one is lost, reading it names that rank instead of reading stale pages
            started.onLoss(loss -> opened.closeWith(() -> new RankLostException(loss.rank(), loss.why())));
        }
        return started.pools();
    }

    /** With shareable pools, every rank's pool side by side in one store, read in place. */
    @Override
    public synchronized java.util.Optional<PageStore> virtualView() {
        return java.util.Optional.ofNullable(view);
    }

    /** The running rank processes (for their faults and restarts); empty before {@link #open}. */
    public synchronized java.util.Optional<RankProcesses> processes() {
        return java.util.Optional.ofNullable(processes);
    }

    @Override
    public synchronized void close() {
        if (view != null) {
            view.close();
            view = null;
        }
        if (processes != null) {
            processes.close();
        }
    }

    @Override
    public String toString() {
        return "rank processes (pools in " + rankMemory + (shareable ? ", shareable" : "") + ")";
    }
}
