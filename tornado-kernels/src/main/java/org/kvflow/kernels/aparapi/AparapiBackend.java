package org.kvflow.kernels.aparapi;

import com.aparapi.device.OpenCLDevice;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.kvflow.core.Failures;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionProfile;
import org.kvflow.kernels.api.ImmutableTaskGraph;
import org.kvflow.kernels.api.KernelCompileException;
import org.kvflow.kernels.api.KernelFallbackException;
import org.kvflow.kernels.api.NativeBackend;

/**
 * Backend {@code opencl}: runs each task's Aparapi twin on an OpenCL device (GPUs first, then
 * CPUs such as PoCL). Buffers are explicit from the first launch on (implicit mode would copy
 * every array at every launch), and an array one task writes reaches the next task's twin (in
 * the same graph or a later graph of the plan) through the host only when that twin's copy is
 * stale ({@link DeviceCopies}); after every launch it checks that OpenCL ran the kernel and throws
 * {@link KernelFallbackException} otherwise. A twin's buffers die with its kernel, so an array a
 * graph persists on the device is brought to the host when the plan closes, where the consuming
 * plan's upload finds it.
 */
public final class AparapiBackend extends NativeBackend {
    /** Aparapi's devices, in the order of the listed ones. */
    private final List<OpenCLDevice> found = new ArrayList<>();

    /** Lists the OpenCL devices, GPUs first, through Aparapi, which starts the OpenCL runtime here. */
    @Override
    protected String listDevices(List<Device> into) {
        for (OpenCLDevice.TYPE type : new OpenCLDevice.TYPE[] {OpenCLDevice.TYPE.GPU, OpenCLDevice.TYPE.CPU}) {
            for (OpenCLDevice d : OpenCLDevice.listDevices(type)) {
                into.add(new Device("opencl", found.size(), d.getName().trim() + " / " + d.getOpenCLPlatform().getName().trim(),
                        type == OpenCLDevice.TYPE.GPU ? Device.Kind.GPU : Device.Kind.CPU));
                found.add(d);
            }
        }
        if (!found.isEmpty()) {
            SignalChaining.warnIfMissing();
        }
        return "no OpenCL platform lists a device (install an ICD such as pocl-opencl-icd)";
    }

    /** A missing libOpenCL surfaces as an UnsatisfiedLinkError. */
    @Override
    protected String notLoaded(Throwable thrown) {
        return "OpenCL cannot be loaded: " + Failures.brief(thrown);
    }

    @Override
    public String name() {
        return "opencl";
    }

    @Override
    public Session open(List<ImmutableTaskGraph> graphs, Device device) {
        probe();
        return new AparapiSession(graphs, device, found.get(device.index()));
    }

    /** One plan's twins on one OpenCL device, with their buffers. */
    private static final class AparapiSession implements Session {
        private final List<ImmutableTaskGraph> graphs;
        private final Device device;
        private final OpenCLDevice cl;
        /** Per graph, its tasks in order, each with its twin and the arrays it reads and writes. */
        private final List<List<Bound>> bound = new ArrayList<>();
        private final DeviceCopies copies = new DeviceCopies();
        /** Every array a task of the plan names. */
        private final Set<Object> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
        /** Twins whose launch failed: Aparapi crashes the JVM when such a kernel is disposed, so they are not. */
        private final Set<AparapiTask> failed = Collections.newSetFromMap(new IdentityHashMap<>());
        private boolean launched;

        AparapiSession(List<ImmutableTaskGraph> graphs, Device device, OpenCLDevice cl) {
            this.graphs = graphs;
            this.device = device;
            this.cl = cl;
            for (ImmutableTaskGraph g : graphs) {
                List<Bound> tasks = new ArrayList<>();
                for (ImmutableTaskGraph.Task t : g.tasks()) {
                    AparapiTask k = Twins.task(t.kernel()).orElseThrow(() -> new KernelCompileException(t.kernel().toString(), device,
                            "it has no Aparapi twin (task " + g.name() + "." + t.id() + ")", null));
                    k.bind(t.args());
                    k.setExplicit(true);
                    k.putOwn();
                    List<Object> used = t.args().stream().filter(a -> !(a instanceof Number)).toList();
                    tasks.add(new Bound(g.name() + "." + t.id(), k, used, k.outputs(t.args())));
                    arrays.addAll(used);
                }
                bound.add(tasks);
            }
        }

        /** One task's twin, the arrays it names and those it writes, fixed when the session opens. */
        private record Bound(String task, AparapiTask twin, List<Object> arrays, List<Object> outputs) {}

        @Override
        public ExecutionProfile execute() {
            long toDevice = copies.bytesToDevice();
            long toHost = copies.bytesToHost();
            Map<String, Long> nanos = new HashMap<>();
            for (int i = 0; i < graphs.size(); i++) {
                ImmutableTaskGraph graph = graphs.get(i);
                for (ImmutableTaskGraph.Transfer tr : graph.toDevice()) {
                    if (!launched || tr.mode() == DataTransferMode.EVERY_EXECUTION) {
                        copies.hostWrote(tr.array());
                    }
                }
                for (Bound b : bound.get(i)) {
                    if (b.twin().globalSize() == 0) {
                        continue;
                    }
                    b.arrays().forEach(a -> copies.readyFor(b.twin(), a));
                    long start = System.nanoTime();
                    launch(b.task(), b.twin());
                    nanos.put(b.task(), System.nanoTime() - start);
                    b.outputs().forEach(a -> copies.deviceWrote(b.twin(), a));
                }
                for (ImmutableTaskGraph.Transfer tr : graph.toHost()) {
                    if (tr.mode() != DataTransferMode.UNDER_DEMAND) {
                        copies.toHost(tr.array());
                    }
                }
            }
            launched = true;
            return new ExecutionProfile(nanos, copies.bytesToDevice() - toDevice, copies.bytesToHost() - toHost);
        }

        private void launch(String task, AparapiTask k) {
            try {
                k.execute(k.range(cl), k.passes());
            } catch (Throwable e) { // Aparapi reports a barred kernel class as an AssertionError
                failed.add(k);
                throw new KernelFallbackException(task, device, "nothing (launch failed)", e);
            }
            if (!k.isRunningCL() || !(k.getTargetDevice() instanceof OpenCLDevice)) {
                failed.add(k);
                throw new KernelFallbackException(task, device, k.getTargetDevice().getShortDescription(), null);
            }
        }

        @Override
        public void transferToHost(Object array) {
            if (arrays.contains(array)) {
                copies.toHost(array);
            }
        }

        @Override
        public void close() {
            graphs.forEach(g -> g.persisted().stream().filter(arrays::contains).forEach(copies::toHost));
            bound.stream().flatMap(List::stream).map(Bound::twin).filter(k -> !failed.contains(k)).forEach(AparapiTask::dispose);
        }
    }
}
