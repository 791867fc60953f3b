package org.kvflow.bench;


import jcuda.driver.CUstream;
import org.jspecify.annotations.Nullable;
import org.kvflow.cuda.LaunchClock;

/**
 * Times each kernel the page memory launches, alone, between two CUDA events on its stream, while
 * {@link #timing} is on: what separates a call from its kernel is the host work around the launch.
 * Used by one memory, whose calls are serialized.
 */
final class EventClock implements LaunchClock {
    private volatile @Nullable CUstream stream;
    private volatile boolean on;
    private volatile float last = Float.NaN;

    /** Whether launches are timed (two events and a wait each, which a pipeline does not need); off at first. */
    void timing(boolean timed) {
        on = timed;
    }

    /** The last timed kernel's device time; NaN before the first. */
    float lastMillis() {
        return last;
    }

    /**
     * Device time of a whole call of the memory ({@code work}), between two events on the memory's
     * stream, as its launches see it; the memory's context must be current.
     *
     * @throws IllegalStateException before the memory launched anything (time after a warm-up call)
     */
    float around(Runnable work) {
        CUstream s = stream;
        if (s == null) {
            throw new IllegalStateException("the memory has launched nothing yet: time a call after a warm-up call");
        }
        return CudaBaseline.between(s, work);
    }

    @Override
    public void launch(CUstream stream, Runnable launch) {
        this.stream = stream;
        if (on) {
            last = CudaBaseline.between(stream, launch);
        } else {
            launch.run();
        }
    }
}
