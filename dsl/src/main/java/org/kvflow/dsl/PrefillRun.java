package org.kvflow.dsl;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.kvflow.pages.HostTraffic;
import org.kvflow.operators.group.KvGroup;
import org.kvflow.operators.PrefillResult;
import reactor.core.publisher.Flux;

/**
 * One run of a built pipeline: its results, and the facts of that run alone (its pools, the page
 * bytes it moved across the host and the largest full view it needed), readable once it has started. Subscribe to {@link #results()}
 * once; every other run of the same pipeline has its own.
 */
public final class PrefillRun {
    private final AtomicReference<@Nullable KvGroup> group = new AtomicReference<>();
    private final AtomicLong peakViewBytes = new AtomicLong();
    private final AtomicReference<List<Long>> warmStartTokens = new AtomicReference<>(List.of());
    private final AtomicReference<@Nullable HostTraffic> traffic = new AtomicReference<>();
    private @Nullable Flux<PrefillResult> results;

    PrefillRun() {
    }

    void results(Flux<PrefillResult> flux) {
        this.results = flux;
    }

    void started(KvGroup pools, HostTraffic pageTraffic) {
        group.set(pools);
        traffic.set(pageTraffic);
    }

    void warmStarted(List<Long> tokens) {
        warmStartTokens.set(List.copyOf(tokens));
    }

    void viewBytes(long bytes) {
        peakViewBytes.accumulateAndGet(bytes, Math::max);
    }

    /**
     * The run's results.
     *
     * @return one result per request; nothing runs before they are subscribed to
     */
    public Flux<PrefillResult> results() {
        if (results == null) {
            throw new IllegalStateException("the run has no results yet");
        }
        return results;
    }

    /**
     * The run's pools, read only.
     *
     * @return pages in use, peaks, cache and leaks, or null before the run was subscribed to
     */
    public @Nullable RunPools pools() {
        KvGroup g = group.get();
        return g == null ? null : new RunPools(g);
    }

    /** The run's group itself, for this package's tests; null before the run was subscribed to. */
    @Nullable KvGroup group() {
        return group.get();
    }

    /**
     * Page bytes the run moved between host memory and the device holding its pools, by stage
     * ({@code kvflow.write}, {@code kvflow.materialize}, …); empty on the {@code java} device, whose
     * pages are on the host, and before the run was subscribed to.
     *
     * @return bytes by stage name
     */
    public Map<String, Long> hostBytesByStage() {
        HostTraffic t = traffic.get();
        return t == null ? Map.of() : t.byStage();
    }

    /**
     * What the run's warm start restored ({@link OwnSpec#warmStartFrom}): per prompt, in the order given,
     * the tokens its cached prefix covered once the run started.
     *
     * @return tokens per prompt; empty without a warm start, or before the run started
     */
    public List<Long> warmStartTokens() {
        return warmStartTokens.get();
    }

    /**
     * The largest full view one batch of the run needed (scratch beside the pools, contract §7).
     *
     * @return bytes
     */
    public long peakViewBytes() {
        return peakViewBytes.get();
    }
}
