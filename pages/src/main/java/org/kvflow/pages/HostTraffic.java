package org.kvflow.pages;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * Page bytes a memory's stores moved between host memory (the Java heap, direct or pinned buffers)
 * and buffers outside it (device memory, another process), by the pipeline stage that moved them.
 * Every store counts what its calls cross into one {@link Meter} of its memory's ledger: a stage
 * works on its own views of the stores ({@link PageStore#countedAs}), so the count follows the
 * store, on whatever thread the stage's work runs; a store nobody named counts under
 * {@link #UNATTRIBUTED}. A memory whose pages all lie on the host never records a byte. Thread-safe.
 */
public final class HostTraffic {
    /** The stage of stores that no stage named (a decode pool, a benchmark's own store). */
    public static final String UNATTRIBUTED = "unattributed";

    private final Map<String, Meter> meters = new ConcurrentHashMap<>();

    /** {@return the counter of the bytes that {@code stage} moved across} */
    public Meter meter(String stage) {
        Objects.requireNonNull(stage, "stage");
        return meters.computeIfAbsent(stage, Meter::new);
    }

    /** Bytes that {@code stage} moved across (0 if none). */
    public long bytes(String stage) {
        Meter meter = meters.get(stage);
        return meter == null ? 0 : meter.bytes.sum();
    }

    /** Every stage that moved bytes across, with its count, by name. */
    public Map<String, Long> byStage() {
        Map<String, Long> out = new TreeMap<>();
        meters.forEach((stage, meter) -> {
            long sum = meter.bytes.sum();
            if (sum > 0) {
                out.put(stage, sum);
            }
        });
        return out;
    }

    /** All bytes that crossed. */
    public long total() {
        return meters.values().stream().mapToLong(m -> m.bytes.sum()).sum();
    }

    /** One stage's count in a ledger. */
    public static final class Meter {
        private final String stage;
        private final LongAdder bytes = new LongAdder();

        private Meter(String stage) {
            this.stage = stage;
        }

        /** {@return the stage counted here} */
        public String stage() {
            return stage;
        }

        /** Counts {@code count} bytes that crossed. */
        public void add(long count) {
            if (count < 0) {
                throw new IllegalArgumentException("a negative byte count crossed for " + stage + ": " + count);
            }
            if (count > 0) {
                bytes.add(count);
            }
        }
    }
}
