package org.kvflow.samples.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.kvflow.dsl.RunPools;

/**
 * Physical pages held on each CP rank of one run, sampled every few milliseconds while the run
 * goes (from {@link #start} to {@link #close}). Thread-safe.
 */
public final class PagesTimeline implements AutoCloseable {
    /** At {@code millis} after the start, rank {@code r} held {@code perRank[r]} physical pages. */
    public record Sample(double millis, long[] perRank) {}

    private final List<Sample> samples = new ArrayList<>();
    private @Nullable ScheduledExecutorService ticks;
    private long start;

    /** Samples the run's pools ({@code pools} returns null until the run has built them) every {@code periodMillis}. */
    public synchronized PagesTimeline start(Supplier<@Nullable RunPools> pools, long periodMillis) {
        start = System.nanoTime();
        ticks = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "demo-pages-timeline");
            t.setDaemon(true);
            return t;
        });
        ticks.scheduleAtFixedRate(() -> {
            RunPools p = pools.get();
            if (p != null) {
                sample(p);
            }
        }, 0, periodMillis, TimeUnit.MILLISECONDS);
        return this;
    }

    /** Samples the ranks of {@code pools} now. */
    public synchronized void sample(RunPools pools) {
        long[] perRank = new long[pools.ranks()];
        for (int r = 0; r < perRank.length; r++) {
            perRank[r] = pools.physicalPagesOnRank(r);
        }
        samples.add(new Sample((System.nanoTime() - start) / 1e6, perRank));
    }

    /** The samples so far, in time order. */
    public synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** Stops sampling (waits for a sample in progress). */
    @Override
    public void close() {
        ScheduledExecutorService t;
        synchronized (this) {
            t = ticks;
            ticks = null;
        }
        if (t != null) {
            t.shutdownNow();
            try {
                t.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
