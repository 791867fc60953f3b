package org.kvflow.pages;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Page bytes a memory moved between host memory (the Java heap, direct or pinned buffers) and its
 * device buffers, by the pipeline stage that moved them. A stage marks the work it runs with
 * {@link #during}; bytes moved outside any stage (a transport thread, a benchmark) count under
 * {@link #UNATTRIBUTED}. A memory whose pages live on the host never records anything. Thread-safe.
 */
public final class HostTraffic {
    /** The key of bytes moved while no stage was marked on the moving thread. */
    public static final String UNATTRIBUTED = "unattributed";

    private static final ThreadLocal<String> STAGE = new ThreadLocal<>();

    private final Map<String, LongAdder> bytes = new ConcurrentHashMap<>();

    /** Runs {@code work} on this thread with {@code stage} named as the mover of the bytes it crosses; marks nest. */
    public static <T> T during(String stage, Supplier<T> work) {
        Objects.requireNonNull(stage, "stage");
        String outer = STAGE.get();
        STAGE.set(stage);
        try {
            return work.get();
        } finally {
            if (outer == null) {
                STAGE.remove();
            } else {
                STAGE.set(outer);
            }
        }
    }

    /** Counts {@code count} bytes that crossed, for the stage marked on this thread. */
    public void add(long count) {
        if (count < 0) {
            throw new IllegalArgumentException("a negative byte count crossed: " + count);
        }
        String stage = STAGE.get();
        bytes.computeIfAbsent(stage == null ? UNATTRIBUTED : stage, s -> new LongAdder()).add(count);
    }

    /** Bytes that {@code stage} moved across (0 if none). */
    public long bytes(String stage) {
        LongAdder adder = bytes.get(stage);
        return adder == null ? 0 : adder.sum();
    }

    /** Every stage that moved bytes across, with its count, by name. */
    public Map<String, Long> byStage() {
        Map<String, Long> out = new TreeMap<>();
        bytes.forEach((stage, adder) -> out.put(stage, adder.sum()));
        return out;
    }

    /** All bytes that crossed. */
    public long total() {
        return bytes.values().stream().mapToLong(LongAdder::sum).sum();
    }
}
