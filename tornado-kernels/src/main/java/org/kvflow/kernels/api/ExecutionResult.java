package org.kvflow.kernels.api;

/**
 * The outcome of one {@link ExecutionPlan#execute()}, which returns once the device is done and
 * the outputs are on the host: where it ran, how long it took (wall time, transfers included),
 * what each task and the host traffic cost ({@link ExecutionProfile}), and on-demand copies of
 * {@code UNDER_DEMAND} outputs.
 */
public final class ExecutionResult {
    private final Device device;
    private final long elapsedNanos;
    private final ExecutionProfile profile;
    private final KernelBackend.Session session;

    ExecutionResult(Device device, long elapsedNanos, ExecutionProfile profile, KernelBackend.Session session) {
        this.device = device;
        this.elapsedNanos = elapsedNanos;
        this.profile = profile;
        this.session = session;
    }

    public Device device() {
        return device;
    }

    public long elapsedNanos() {
        return elapsedNanos;
    }

    public ExecutionProfile profile() {
        return profile;
    }

    /** Copies the given outputs from the device now. */
    public ExecutionResult transferToHost(Object... arrays) {
        for (Object a : arrays) {
            session.transferToHost(a);
        }
        return this;
    }
}
