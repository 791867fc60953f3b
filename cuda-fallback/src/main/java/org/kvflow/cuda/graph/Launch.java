package org.kvflow.cuda.graph;

import java.util.List;
import jcuda.driver.CUstream;

/** One task of a plan, bound on the cuda device: the buffers it reads and writes, and how it is enqueued. */
interface Launch {
    /** {@code "<graph>.<task>"}. */
    String task();

    /** Buffers that must hold the newest value before the launch. */
    List<DeviceArray> reads();

    /** Buffers the launch writes. */
    List<DeviceArray> writes();

    /**
     * Checks what can only be checked with the inputs in hand (page lists), before the launch.
     * With {@code mayRead} false it checks only inputs whose host copy is current; with it true it
     * reads a kernel-written input back first.
     *
     * @return the bytes read back from the device
     */
    default long check(boolean mayRead) {
        return 0;
    }

    /** Enqueues the kernel launches on {@code stream} without waiting for them. */
    void enqueue(CUstream stream);

    /** Frees what the launch holds on the device beyond the plan's buffers (a captured graph); called once, when the plan closes. */
    default void close() {}
}
