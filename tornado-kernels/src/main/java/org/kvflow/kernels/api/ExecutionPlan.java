package org.kvflow.kernels.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Runs frozen task graphs on one device (TornadoVM's {@code TornadoExecutionPlan}). The device is
 * bound at the first {@link #execute()}: {@link #withDevice} after that throws. Closing frees
 * the device buffers. Not thread-safe.
 */
public final class ExecutionPlan implements AutoCloseable {
    private final List<ImmutableTaskGraph> graphs;
    /** Null until chosen: {@code auto} is resolved at the first use, not for every plan that names its device. */
    private @Nullable Device device;
    private final List<KernelBackend.Session> sessions = new ArrayList<>();

    public ExecutionPlan(ImmutableTaskGraph... graphs) {
        if (graphs.length == 0) {
            throw new IllegalArgumentException("an execution plan needs at least one task graph");
        }
        this.graphs = List.of(graphs);
    }

    /** Runs on {@code device} (from {@link Devices}); {@code auto} is the default. */
    public ExecutionPlan withDevice(Device device) {
        if (!sessions.isEmpty()) {
            throw new IllegalStateException("plan already runs on " + this.device + "; build a new plan for " + device);
        }
        this.device = Objects.requireNonNull(device, "device");
        return this;
    }

    /** The device this plan runs on ({@code auto} resolved now if none was given). */
    public Device device() {
        if (device == null) {
            device = Devices.select("auto");
        }
        return device;
    }

    /** Runs every graph once, in order, and returns when the outputs are on the host. */
    public ExecutionResult execute() {
        if (sessions.isEmpty()) {
            Device d = device();
            KernelBackend backend = Devices.backend(d);
            for (ImmutableTaskGraph g : graphs) {
                sessions.add(backend.open(g, d));
            }
        }
        long start = System.nanoTime();
        sessions.forEach(KernelBackend.Session::execute);
        return new ExecutionResult(device(), System.nanoTime() - start, sessions);
    }

    @Override
    public void close() {
        sessions.forEach(KernelBackend.Session::close);
        sessions.clear();
    }
}
