package org.kvflow.kernels.aparapi;

import com.aparapi.device.OpenCLDevice;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ImmutableTaskGraph;
import org.kvflow.kernels.api.KernelBackend;
import org.kvflow.kernels.api.KernelFallbackException;

/**
 * Backend {@code opencl}: runs each task's Aparapi twin on an OpenCL device (GPUs first, then
 * CPUs such as PoCL). Buffers are explicit from the first launch on (implicit mode would copy
 * every array at every launch, TOOLCHAIN.md §4), and an array one task writes reaches the next task's
 * twin through the host only when that twin's copy is stale ({@link DeviceCopies}); after every
 * launch it checks that OpenCL ran the kernel and throws {@link KernelFallbackException} otherwise.
 */
public final class AparapiBackend implements KernelBackend {
    private static final Map<String, Supplier<AparapiTask>> TWINS = Map.of(
            "org.kvflow.kernels.gather.GatherKernels.gatherPages", () -> new PageMoveAparapi(false),
            "org.kvflow.kernels.gather.GatherKernels.scatterPages", () -> new PageMoveAparapi(true),
            "org.kvflow.kernels.nsa.IndexerKernels.scoreFp8", IndexScoreAparapi::new,
            "org.kvflow.kernels.nsa.IndexerKernels.topKRows", TopKAparapi::new,
            "org.kvflow.kernels.nsa.AttentionKernels.attendBatch", AttendAparapi::new,
            "org.kvflow.kernels.quant.QuantKernels.quantizeTiles", QuantizeAparapi::new,
            "org.kvflow.kernels.quant.QuantKernels.dequantizeTiles", DequantizeAparapi::new,
            "org.kvflow.kernels.nsa.SyntheticKernels.keys", SyntheticKeysAparapi::new);

    private final List<OpenCLDevice> found = new ArrayList<>();
    private final List<Device> devices = new ArrayList<>();
    private String unavailable = "";

    public AparapiBackend() {
        try {
            for (OpenCLDevice.TYPE type : new OpenCLDevice.TYPE[] {OpenCLDevice.TYPE.GPU, OpenCLDevice.TYPE.CPU}) {
                for (OpenCLDevice d : OpenCLDevice.listDevices(type)) {
                    devices.add(new Device("opencl", found.size(), d.getName().trim() + " / " + d.getOpenCLPlatform().getName().trim(),
                            type == OpenCLDevice.TYPE.GPU ? Device.Kind.GPU : Device.Kind.CPU));
                    found.add(d);
                }
            }
            if (found.isEmpty()) {
                unavailable = "no OpenCL platform lists a device (install an ICD such as pocl-opencl-icd)";
            }
        } catch (Throwable e) { // a missing libOpenCL surfaces as UnsatisfiedLinkError
            unavailable = "OpenCL cannot be loaded: " + e;
        }
    }

    @Override
    public String name() {
        return "opencl";
    }

    @Override
    public List<Device> devices() {
        return List.copyOf(devices);
    }

    @Override
    public String unavailableReason() {
        return unavailable;
    }

    @Override
    public Session open(ImmutableTaskGraph graph, Device device) {
        return new AparapiSession(graph, device, found.get(device.index()));
    }

    /** One graph's twins on one OpenCL device, with their buffers. */
    private static final class AparapiSession implements Session {
        private final ImmutableTaskGraph graph;
        private final Device device;
        private final OpenCLDevice cl;
        /** The tasks in graph order, each with its twin and the arrays it reads and writes. */
        private final List<Bound> bound = new ArrayList<>();
        private final DeviceCopies copies = new DeviceCopies();
        /** Every array a task of the graph names. */
        private final Set<Object> arrays = Collections.newSetFromMap(new IdentityHashMap<>());
        /** Twins whose launch failed: Aparapi crashes the JVM when such a kernel is disposed, so they are not. */
        private final Set<AparapiTask> failed = Collections.newSetFromMap(new IdentityHashMap<>());
        private boolean launched;

        AparapiSession(ImmutableTaskGraph graph, Device device, OpenCLDevice cl) {
            this.graph = graph;
            this.device = device;
            this.cl = cl;
            for (ImmutableTaskGraph.Task t : graph.tasks()) {
                Supplier<AparapiTask> twin = TWINS.get(t.kernel().toString());
                if (twin == null) {
                    throw new KernelFallbackException(graph.name() + "." + t.id(), device, "nothing: kernel " + t.kernel()
                            + " has no OpenCL twin", null);
                }
                AparapiTask k = twin.get();
                k.bind(t.args());
                k.setExplicit(true);
                k.putOwn();
                List<Object> used = t.args().stream().filter(a -> !(a instanceof Number)).toList();
                bound.add(new Bound(t.id(), k, used, k.outputs(t.args())));
                arrays.addAll(used);
            }
        }

        /** One task's twin, the arrays it names and those it writes, fixed when the session opens. */
        private record Bound(String task, AparapiTask twin, List<Object> arrays, List<Object> outputs) {}

        @Override
        public void execute() {
            for (ImmutableTaskGraph.Transfer tr : graph.toDevice()) {
                if (!launched || tr.mode() == DataTransferMode.EVERY_EXECUTION) {
                    copies.hostWrote(tr.array());
                }
            }
            launched = true;
            for (Bound b : bound) {
                if (b.twin().globalSize() == 0) {
                    continue;
                }
                b.arrays().forEach(a -> copies.readyFor(b.twin(), a));
                launch(b.task(), b.twin());
                b.outputs().forEach(a -> copies.deviceWrote(b.twin(), a));
            }
            for (ImmutableTaskGraph.Transfer tr : graph.toHost()) {
                if (tr.mode() != DataTransferMode.UNDER_DEMAND) {
                    copies.toHost(tr.array());
                }
            }
        }

        private void launch(String task, AparapiTask k) {
            String name = graph.name() + "." + task;
            try {
                k.execute(k.range(cl), k.passes());
            } catch (Throwable e) { // Aparapi reports a barred kernel class as an AssertionError
                failed.add(k);
                throw new KernelFallbackException(name, device, "nothing (launch failed)", e);
            }
            if (!k.isRunningCL() || !(k.getTargetDevice() instanceof OpenCLDevice)) {
                failed.add(k);
                throw new KernelFallbackException(name, device, k.getTargetDevice().getShortDescription(), null);
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
            bound.stream().map(Bound::twin).filter(k -> !failed.contains(k)).forEach(AparapiTask::dispose);
        }
    }
}
