package org.kvflow.kernels.api;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Runs frozen task graphs on one device (TornadoVM's {@code TornadoExecutionPlan}). The graphs
 * share the plan's device memory: an array one graph writes is read where it lies by the next.
 * {@link #withDevice} binds the plan at once, so a kernel that cannot run there, an array consumed
 * but never persisted, or a device out of memory fails the plan as it is built; without it the
 * plan binds to {@code auto} at its first {@link #execute()}. Closing frees the device buffers
 * (except persisted ones). Not thread-safe.
 *
 * <p>An array a graph persists is handed, when its plan closes, to the next plan built on the same
 * device whose graph consumes it; consuming an array that no closed plan persisted there is a
 * {@link NotPersistedException}, on every backend.
 */
public final class ExecutionPlan implements AutoCloseable {
    /** Per device, the arrays closed plans persisted and no plan has consumed yet. */
    private static final Map<Device, Set<Object>> PERSISTED = new HashMap<>();

    private final List<ImmutableTaskGraph> graphs;
    private @Nullable Device device;
    private KernelBackend.@Nullable Session session;

    public ExecutionPlan(ImmutableTaskGraph... graphs) {
        if (graphs.length == 0) {
            throw new IllegalArgumentException("an execution plan needs at least one task graph");
        }
        this.graphs = List.of(graphs);
    }

    /**
     * Binds the plan to {@code device} (from {@link Devices}) now.
     *
     * @throws KernelCompileException if a task's kernel cannot run there
     * @throws IllegalStateException if the plan is already bound
     */
    public ExecutionPlan withDevice(Device device) {
        if (session != null) {
            throw new IllegalStateException("plan already runs on " + this.device + "; build a new plan for " + device);
        }
        bind(Objects.requireNonNull(device, "device"));
        return this;
    }

    /** The device this plan runs on ({@code auto} resolved now if none was given). */
    public Device device() {
        if (device == null) {
            device = Devices.select("auto");
        }
        return device;
    }

    private KernelBackend.Session bind(Device chosen) {
        List<Object> consumed = take(chosen);
        try {
            KernelBackend.Session opened = Devices.backend(chosen).open(graphs, chosen);
            device = chosen;
            session = opened;
            return opened;
        } catch (RuntimeException e) {
            give(chosen, consumed);
            throw e;
        }
    }

    /** Takes the arrays the graphs consume out of {@code chosen}'s persisted set, or throws if one is not in it. */
    private List<Object> take(Device chosen) {
        synchronized (PERSISTED) {
            Set<Object> there = PERSISTED.getOrDefault(chosen, Set.of());
            List<Object> taken = new ArrayList<>();
            for (ImmutableTaskGraph g : graphs) {
                for (int i = 0; i < g.consumed().size(); i++) {
                    Object a = g.consumed().get(i);
                    if (!there.contains(a) && !taken.contains(a)) {
                        throw new NotPersistedException(g.name(), i, a, chosen);
                    }
                    taken.add(a);
                }
            }
            taken.forEach(there::remove);
            return taken;
        }
    }

    private static void give(Device d, List<Object> arrays) {
        synchronized (PERSISTED) {
            PERSISTED.computeIfAbsent(d, k -> Collections.newSetFromMap(new IdentityHashMap<>())).addAll(arrays);
        }
    }

    /** Runs every graph once, in order, and returns when the outputs are on the host. */
    public ExecutionResult execute() {
        KernelBackend.Session s = bound();
        long start = System.nanoTime();
        ExecutionProfile profile = s.execute();
        return new ExecutionResult(device(), System.nanoTime() - start, profile, s);
    }

    /**
     * Where {@code array} (an array of this plan's graphs) lies on the plan's device, its device
     * copy made current first, for a page memory of the same device to read or fill in place;
     * empty on devices whose arrays are host arrays ({@code java}) or that no page memory reaches
     * ({@code opencl}). Binds the plan if it is not bound yet.
     *
     * @throws IllegalArgumentException if {@code array} is not an array of this plan
     */
    public java.util.Optional<DeviceRegion> deviceRegion(Object array) {
        return bound().inPlaceArrays().flatMap(d -> d.deviceRegion(array));
    }

    /**
     * {@link #deviceRegion} for a page memory that fills the whole array in place before it calls
     * {@link #writtenOnDevice}: the host copy, about to be overwritten, is not sent first.
     *
     * @throws IllegalArgumentException if {@code array} is not an array of this plan
     */
    public java.util.Optional<DeviceRegion> deviceRegionToFill(Object array) {
        return bound().inPlaceArrays().flatMap(d -> d.deviceRegionToFill(array));
    }

    /**
     * Marks {@code arrays} as written in place on the device (after a page memory filled their
     * {@link #deviceRegion regions}): the next {@link #execute()} reads them there instead of
     * sending their host copies.
     *
     * @throws UnsupportedOperationException naming the device, on one whose arrays are host arrays
     */
    public void writtenOnDevice(Object... arrays) {
        KernelBackend.InPlaceArrays d = bound().inPlaceArrays().orElseThrow(() -> new UnsupportedOperationException(
                "device " + device().selector() + ": its arrays are host arrays; none is written in place on a device"));
        for (Object a : arrays) {
            d.writtenOnDevice(a);
        }
    }

    private KernelBackend.Session bound() {
        return session != null ? session : bind(device());
    }

    @Override
    public void close() {
        if (session != null) {
            session.close();
            session = null;
            graphs.forEach(g -> give(device(), g.persisted()));
        }
    }
}
