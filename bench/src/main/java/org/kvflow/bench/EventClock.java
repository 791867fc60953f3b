package org.kvflow.bench;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuEventSynchronize;

import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import org.kvflow.cuda.LaunchClock;

/**
 * Times each kernel the page memory launches, alone, between two CUDA events on its stream, while
 * {@link #timing} is on: what separates a call from its kernel is the host work around the launch.
 * Used by one memory, whose calls are serialized.
 */
final class EventClock implements LaunchClock {
    private CUevent start;
    private CUevent stop;
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

    @Override
    public void launch(CUstream stream, Runnable launch) {
        if (!on) {
            launch.run();
            return;
        }
        if (start == null) { // created on the first timed launch, in the memory's context
            start = new CUevent();
            stop = new CUevent();
            cuEventCreate(start, 0);
            cuEventCreate(stop, 0);
        }
        cuEventRecord(start, stream);
        launch.run();
        cuEventRecord(stop, stream);
        cuEventSynchronize(stop);
        float[] ms = new float[1];
        cuEventElapsedTime(ms, start, stop);
        last = ms[0];
    }
}
