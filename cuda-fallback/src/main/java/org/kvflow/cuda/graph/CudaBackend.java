package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuDeviceGet;
import static jcuda.driver.JCudaDriver.cuDeviceGetCount;
import static jcuda.driver.JCudaDriver.cuDeviceGetName;
import static jcuda.driver.JCudaDriver.cuInit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import com.aparapi.Kernel;
import jcuda.CudaException;
import jcuda.driver.CUdevice;
import jcuda.driver.CUfunction;
import jcuda.driver.JCudaDriver;
import org.kvflow.kernels.aparapi.Twin;
import org.kvflow.kernels.aparapi.Twins;
import org.kvflow.core.Failures;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ImmutableTaskGraph;
import org.kvflow.kernels.api.KernelCompileException;
import org.kvflow.kernels.api.NativeBackend;

/**
 * Backend {@code cuda}: task graphs on an NVIDIA GPU through the CUDA driver (JCuda), in the
 * device's primary context, which the hand-written page copies share. A task runs its twin's
 * kernel compiled for CUDA from the twin's one Java source ({@link CudaTwinSource}, modules from
 * {@link TwinModules}); page gather and scatter run the hand-written {@code page_move} kernel
 * instead, and the indexer's scores the prebuilt tensor-core kernel ({@link IndexScoreLaunch}) for
 * the dims it takes. A plan's arrays live in device memory for the life of the plan, persisted ones beyond
 * it; see {@link CudaSession} for what one execution does.
 */
public final class CudaBackend extends NativeBackend {
    private static final System.Logger LOG = System.getLogger(CudaBackend.class.getName());
    /** Translations, one per twin class: a recompiled class is a new class, so an edited kernel is translated anew. */
    private static final Map<Class<?>, CudaTwinSource> SOURCES = new ConcurrentHashMap<>();

    /** Lists the CUDA devices through the driver, which loads here (never when the backend is loaded). */
    @Override
    protected String listDevices(List<Device> into) {
        JCudaDriver.setExceptionsEnabled(true);
        cuInit(0);
        int[] count = new int[1];
        cuDeviceGetCount(count);
        for (int i = 0; i < count[0]; i++) {
            CUdevice d = new CUdevice();
            cuDeviceGet(d, i);
            byte[] name = new byte[256];
            cuDeviceGetName(name, name.length, d);
            into.add(new Device("cuda", i, new String(name, StandardCharsets.US_ASCII).replace("\0", "").trim(), Device.Kind.GPU));
        }
        return "the CUDA driver lists no device";
    }

    /** UnsatisfiedLinkError without libcuda.so.1, CudaException without a device. */
    @Override
    protected String notLoaded(Throwable thrown) {
        return "no CUDA driver (" + Failures.brief(thrown) + ")";
    }

    @Override
    public String name() {
        return "cuda";
    }

    @Override
    public Session open(List<ImmutableTaskGraph> graphs, Device device) {
        CudaContext context = CudaContext.of(device.index());
        DeviceArrays buffers = new DeviceArrays(context);
        try {
            for (ImmutableTaskGraph g : graphs) {
                for (Object a : g.consumed()) {
                    if (!buffers.contains(a)) {
                        // ExecutionPlan let the graph consume it only because a closed plan persisted it on this device
                        buffers.adopt(Objects.requireNonNull(context.consume(a), () -> a + " was persisted but has no buffer on " + device));
                    }
                }
            }
            List<List<Launch>> launches = new ArrayList<>();
            for (ImmutableTaskGraph g : graphs) {
                g.toDevice().forEach(t -> buffers.of(t.array(), g.name() + " input"));
                List<Launch> tasks = new ArrayList<>();
                for (ImmutableTaskGraph.Task t : g.tasks()) {
                    String label = g.name() + "." + t.id();
                    t.args().stream().filter(a -> !(a instanceof Number)).forEach(a -> buffers.of(a, label + " argument"));
                    tasks.add(bind(label, t, device, context, buffers));
                }
                g.toHost().forEach(t -> buffers.of(t.array(), g.name() + " output"));
                launches.add(tasks);
            }
            return new CudaSession(context, device, graphs, buffers, launches);
        } catch (RuntimeException e) {
            buffers.release(Set.of(), true);
            throw e;
        }
    }

    private static Launch bind(String label, ImmutableTaskGraph.Task t, Device device, CudaContext context, DeviceArrays buffers) {
        String kernel = t.kernel().toString();
        if (PageMoveLaunch.KERNELS.containsKey(kernel)) {
            return new PageMoveLaunch(label, kernel, t.args(), buffers, PageMoveModule.in(context));
        }
        TwinLaunch twin = twinLaunch(label, t, device, context, buffers);
        return kernel.equals(IndexScoreLaunch.KERNEL) ? new IndexScoreLaunch(label, t.args(), buffers, context, twin) : twin;
    }

    /** The task run by its twin's translated kernel. */
    private static TwinLaunch twinLaunch(String label, ImmutableTaskGraph.Task t, Device device, CudaContext context, DeviceArrays buffers) {
        String kernel = t.kernel().toString();
        Twin twin = Twins.forCuda(t.kernel()).orElseThrow(() -> new KernelCompileException(kernel, device,
                "it has no Aparapi twin (task " + label + ")", null));
        twin.bind(t.args());
        CudaTwinSource source = translate(kernel, twin.kernel(), twin.localSize(), device);
        CUfunction function;
        try {
            function = context.function(source.moduleName(), "run", () -> module(source, device));
        } catch (CudaException e) {
            throw new KernelCompileException(kernel, device, "the driver did not load its module: " + e.getMessage(), e);
        }
        return new TwinLaunch(label, twin, source, function, t.args(), buffers);
    }

    /**
     * {@code twin}'s class as CUDA C for blocks of {@code localSize}, translated once per class.
     *
     * @throws KernelCompileException naming {@code kernel} if Aparapi cannot write it or the rewrite does not apply
     */
    static CudaTwinSource translate(String kernel, Kernel twin, int localSize, Device device) {
        try {
            return SOURCES.computeIfAbsent(twin.getClass(), c -> CudaTwinSource.translate(kernel, twin, localSize));
        } catch (IllegalArgumentException e) {
            throw new KernelCompileException(kernel, device, e.getMessage(), e);
        }
    }

    /**
     * The module of {@code source}: from the jar, the cache, or compiled now.
     *
     * @throws KernelCompileException naming the kernel if nvcc refuses it or is absent
     */
    static byte[] module(CudaTwinSource source, Device device) {
        try {
            TwinModules.Module m = TwinModules.fatbin(source);
            LOG.log(System.Logger.Level.DEBUG, "module {0} for {1} from {2}", source.moduleName(), source.kernel(), m.origin());
            return m.fatbin();
        } catch (TwinModules.ModuleCompileException e) {
            throw new KernelCompileException(source.kernel(), device, e.getMessage(), e);
        }
    }
}
