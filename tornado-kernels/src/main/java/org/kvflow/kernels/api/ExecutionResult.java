package org.kvflow.kernels.api;

import java.util.List;

/**
 * The outcome of one {@link ExecutionPlan#execute()}: where it ran, how long it took (wall time,
 * transfers included), and on-demand copies of {@code UNDER_DEMAND} outputs.
 */
public final class ExecutionResult {
    private final Device device;
    private final long elapsedNanos;
    private final List<KernelBackend.Session> sessions;

    ExecutionResult(Device device, long elapsedNanos, List<KernelBackend.Session> sessions) {
        this.device = device;
        this.elapsedNanos = elapsedNanos;
        this.sessions = List.copyOf(sessions);
    }

    public Device device() {
        return device;
    }

    public long elapsedNanos() {
        return elapsedNanos;
    }

    /** Copies the given outputs from the device now. */
    public ExecutionResult transferToHost(Object... arrays) {
        for (Object a : arrays) {
            sessions.forEach(s -> s.transferToHost(a));
        }
        return this;
    }

    public boolean isReady() {
        return true;
    }
}
