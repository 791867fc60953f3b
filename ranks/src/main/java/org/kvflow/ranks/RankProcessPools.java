package org.kvflow.ranks;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.kvflow.core.model.KvLayout;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageStore;
import org.kvflow.pages.RankPools;

/**
 * CP ranks' pools held by rank processes ({@link RankProcesses}), as a group's {@link RankPools}:
 * the stages then write, gather, attend on, back up and send the processes' pages as they do a
 * pool of their own. Opened in place where the pipeline's memory opens the ranks' buffers (the
 * {@code cuda} memory, CUDA IPC on one machine); by staged copies over the control connections
 * where it cannot (the {@code java} memory), counted in {@link RankProcesses#stagedBytes()}.
 */
public final class RankProcessPools implements RankPools {
    private final String rankMemory;
    private final Duration timeout;
    private final boolean shareable;
    private final boolean restartLost;
    private final java.util.Map<Integer, RuntimeException> restartFailures = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile @Nullable RankProcesses processes;
    /**
     * The virtual view; not guarded by this object's lock, because a loss closes it while the
     * processes' lock is held (that lock is always taken after this one, never before).
     */
    private final java.util.concurrent.atomic.AtomicReference<@Nullable PageStore> view = new java.util.concurrent.atomic.AtomicReference<>();
    private final List<Listener> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();

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
        this(rankMemory, timeout, shareable, false);
    }

    /**
     * @param rankMemory  the page memory each rank process allocates its pool in ({@code cuda})
     * @param timeout     how long a rank may take to start or to answer
     * @param shareable   shareable pools, also mapped side by side in one {@link #virtualView} for attention to read in place
     * @param restartLost restart a lost rank at once, in the background ({@value #RESTART_ATTEMPTS} attempts,
     *                    {@link #RESTART_PAUSE} apart; the last failure is kept: {@link #restartFailure})
     */
    public RankProcessPools(String rankMemory, Duration timeout, boolean shareable, boolean restartLost) {
        this.rankMemory = Objects.requireNonNull(rankMemory, "rankMemory");
        this.timeout = Objects.requireNonNull(timeout, "timeout");
        this.shareable = shareable;
        this.restartLost = restartLost;
    }

    /** How many times a lost rank is started again before it is left lost. */
    public static final int RESTART_ATTEMPTS = 3;
    /** The pause between two attempts to restart a lost rank. */
    public static final Duration RESTART_PAUSE = Duration.ofSeconds(1);

    /**
     * Starts one rank process per rank and opens their pools in {@code memory} (in place, or staged).
     *
     * @throws RankStartException naming the first rank that did not start, or rank 0 when shareable pools cannot be opened in place
     */
    @Override
    public synchronized List<PageStore> open(PageMemory memory, KvLayout kv, int ranks, int pageSize, int pagesPerRank) {
        if (processes != null) {
            throw new IllegalStateException("the rank processes are already started");
        }
        RankSpec spec = new RankSpec(0, rankMemory, kv, pageSize, pagesPerRank, shareable);
        RankProcesses started = RankProcesses.start(spec, ranks, memory, timeout);
        if (shareable && !started.mapped()) { // a virtual view maps the pools; staged copies cannot stand in for it
            String why = started.unmappedReason();
            started.close();
            throw new RankStartException(0, "its pool cannot be mapped into a virtual view by the " + memory.name() + " page memory (" + why + ")");
        }
        processes = started;
        if (shareable) {
            openView();
        }
        started.onLoss(loss -> {
            closeView(loss);
            listeners.forEach(l -> l.lost(loss.rank(), loss));
            if (restartLost) {
                listeners.forEach(l -> l.restarting(loss.rank()));
                Thread.ofVirtual().name("kvflow-rank-restart-" + loss.rank()).start(() -> restartInBackground(started, loss.rank()));
            }
        });
        started.onRestart((rank, fresh) -> {
            restartFailures.remove(rank); // however it came back (by hand after the background gave up, too), it is up now
            if (shareable) {
                openView();
            }
            listeners.forEach(l -> l.replaced(rank, fresh));
        });
        return started.pools();
    }

    /** Restarts a lost rank, up to {@link #RESTART_ATTEMPTS} times; keeps the last failure where none succeeds. */
    private void restartInBackground(RankProcesses started, int rank) {
        for (int attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
            try {
                started.restart(rank);
                return;
            } catch (RankStartException e) {
                restartFailures.put(rank, e);
            } catch (RuntimeException e) { // closed meanwhile, restarted by someone else, or lost again (which starts its own restart)
                return;
            }
            try {
                Thread.sleep(RESTART_PAUSE);
            } catch (InterruptedException e) {
                return;
            }
        }
        RuntimeException last = restartFailures.get(rank);
        listeners.forEach(l -> l.gaveUp(rank, last));
    }

    /**
     * Why the background restart of lost rank {@code rank} last failed; empty when it did not, when
     * the rank has been restarted since (by hand or in the background), or when restarts are not automatic.
     */
    public java.util.Optional<RuntimeException> restartFailure(int rank) {
        return java.util.Optional.ofNullable(restartFailures.get(rank));
    }

    /** Maps every rank's pool side by side into a new virtual view (closed at once if a rank was lost meanwhile). */
    private void openView() {
        RankProcesses started = java.util.Objects.requireNonNull(processes);
        PageStore old = view.getAndSet(started.openView("virtual view of " + started.ranks() + " rank pools"));
        if (old != null) {
            old.close();
        }
        for (int r = 0; r < started.ranks(); r++) {
            java.util.Optional<RankLostException> loss = started.lost(r);
            if (loss.isPresent()) {
                closeView(loss.get());
                return;
            }
        }
    }

    /** The view maps every rank's pages: once one is lost, reading it names that rank instead of reading pages that are gone. */
    private void closeView(RankLostException loss) {
        PageStore current = view.get();
        if (current != null) {
            current.closeWith(() -> new RankLostException(loss.rank(), loss.why()));
        }
    }

    /** Tells {@code listener} of each rank lost and each rank restarted ({@link #restart}). */
    @Override
    public void listen(Listener listener) {
        listeners.add(java.util.Objects.requireNonNull(listener, "listener"));
    }

    /**
     * Restarts lost rank {@code rank} with a fresh pool: the group's stages use it from the next
     * batch on (the requests that had pages on the lost pool were failed with its loss).
     *
     * @throws IllegalStateException if the processes are not started or the rank is not lost
     * @throws RankStartException if it does not start
     */
    public void restart(int rank) {
        processes().orElseThrow(() -> new IllegalStateException("the rank processes are not started")).restart(rank);
    }

    /** With shareable pools, every rank's pool side by side in one store, read in place. */
    @Override
    public java.util.Optional<PageStore> virtualView() {
        return java.util.Optional.ofNullable(view.get());
    }

    /** The running rank processes (for their faults and restarts); empty before {@link #open}. */
    public synchronized java.util.Optional<RankProcesses> processes() {
        return java.util.Optional.ofNullable(processes);
    }

    @Override
    public synchronized void close() {
        PageStore current = view.getAndSet(null);
        if (current != null) {
            current.close();
        }
        if (processes != null) {
            processes.close();
        }
    }

    @Override
    public String toString() {
        return "rank processes (pools in " + rankMemory + (shareable ? ", shareable" : "") + (restartLost ? ", lost ranks restarted" : "") + ")";
    }
}
