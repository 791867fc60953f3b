package org.kvflow.kernels.aparapi;

import com.aparapi.device.OpenCLDevice;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.ImmutableTaskGraph;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.KernelBackend;
import org.kvflow.kernels.api.KernelFallbackException;
import org.kvflow.kernels.api.LongArray;

/**
 * Backend {@code opencl}: runs each task's Aparapi twin on an OpenCL device (GPUs first, then
 * CPUs such as PoCL). Buffers are explicit from the first launch on (implicit mode would copy
 * every array at every launch, TOOLCHAIN.md §4); after every launch it checks that OpenCL ran the
 * kernel and throws {@link KernelFallbackException} otherwise.
 */
public final class AparapiBackend implements KernelBackend {
    private static final Map<String, Supplier<AparapiTask>> TWINS = Map.of(
            "org.kvflow.kernels.gather.GatherKernels.gatherPages", () -> new PageMoveAparapi(false),
            "org.kvflow.kernels.gather.GatherKernels.scatterPages", () -> new PageMoveAparapi(true),
            "org.kvflow.kernels.nsa.IndexerKernels.scoreFp8", IndexScoreAparapi::new,
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
        private final List<AparapiTask> twins = new ArrayList<>();
        /** Which twin holds each array's device buffer (the first task that uses it). */
        private final Map<Object, AparapiTask> owner = new IdentityHashMap<>();
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
                twins.add(k);
                t.args().stream().filter(a -> !(a instanceof Number)).forEach(a -> owner.putIfAbsent(a, k));
            }
        }

        @Override
        public void execute() {
            for (ImmutableTaskGraph.Transfer tr : graph.toDevice()) {
                if (!launched || tr.mode() == DataTransferMode.EVERY_EXECUTION) {
                    put(tr.array());
                }
            }
            if (!launched) {
                graph.toHost().forEach(tr -> put(tr.array())); // outputs need a device buffer before the first launch
            }
            launched = true;
            for (int i = 0; i < twins.size(); i++) {
                launch(graph.tasks().get(i).id(), twins.get(i));
            }
            for (ImmutableTaskGraph.Transfer tr : graph.toHost()) {
                if (tr.mode() != DataTransferMode.UNDER_DEMAND) {
                    get(tr.array());
                }
            }
        }

        private void launch(String task, AparapiTask k) {
            if (k.globalSize() == 0) {
                return;
            }
            String name = graph.name() + "." + task;
            try {
                k.execute(k.range(cl));
            } catch (Throwable e) { // Aparapi reports a barred kernel class as an AssertionError
                throw new KernelFallbackException(name, device, "nothing (launch failed)", e);
            }
            if (!k.isRunningCL() || !(k.getTargetDevice() instanceof OpenCLDevice)) {
                throw new KernelFallbackException(name, device, k.getTargetDevice().getShortDescription(), null);
            }
        }

        @Override
        public void transferToHost(Object array) {
            if (owner.containsKey(array)) {
                get(array);
            }
        }

        private void put(Object array) {
            move(array, true);
        }

        private void get(Object array) {
            move(array, false);
        }

        private void move(Object array, boolean toDevice) {
            AparapiTask k = owner.get(array);
            if (k == null) {
                return;
            }
            switch (array) {
                case LongArray a -> k.move(a.toHeapArray(), toDevice);
                case IntArray a -> k.move(a.toHeapArray(), toDevice);
                case FloatArray a -> k.move(a.toHeapArray(), toDevice);
                case ByteArray a -> k.move(a.toHeapArray(), toDevice);
                default -> throw new IllegalArgumentException("cannot move " + array.getClass().getSimpleName());
            }
        }

        @Override
        public void close() {
            twins.forEach(AparapiTask::dispose);
        }
    }
}
