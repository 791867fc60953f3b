package org.kvflow.cuda;

import jcuda.driver.CUstream;

/**
 * How the page memory runs one kernel launch on its stream: plainly, or between two events of a
 * clock that times kernels alone (a benchmark's). The memory waits for its stream after every launch.
 */
@FunctionalInterface
public interface LaunchClock {
    /** Runs {@code launch}, which enqueues one kernel on {@code stream}. */
    void launch(CUstream stream, Runnable launch);

    /** Runs the launch, times nothing. */
    LaunchClock UNTIMED = (stream, launch) -> launch.run();
}
