package org.kvflow.bench;

import org.kvflow.cuda.CudaPageMemory;

/**
 * A benchmark's view of one GPU: the page memory under test, its launches run through a kernel
 * clock, and the baseline of raw buffers and event timing beside it.
 *
 * @param memory the page memory the benchmark measures
 * @param clock times each of the memory's kernels alone while on
 * @param baseline plain copies of the same bytes and the event timer
 */
record CudaBench(CudaPageMemory memory, EventClock clock, CudaBaseline baseline) implements AutoCloseable {
    /** Opens device {@code ordinal}: a memory whose kernels the clock can time, and a baseline on the same device. */
    static CudaBench open(int ordinal) {
        EventClock clock = new EventClock();
        CudaPageMemory memory = new CudaPageMemory(ordinal, clock);
        return new CudaBench(memory, clock, new CudaBaseline(memory.device()));
    }

    /** Device time of a call of the memory ({@code work}), between two events on the memory's stream. */
    float memoryMillis(Runnable work) {
        memory.device().makeCurrent();
        return clock.around(work);
    }

    @Override
    public void close() {
        try {
            baseline.close();
        } finally {
            memory.close();
        }
    }
}
