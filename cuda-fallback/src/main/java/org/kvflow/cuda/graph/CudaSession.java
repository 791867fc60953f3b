package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuEventCreate;
import static jcuda.driver.JCudaDriver.cuEventDestroy;
import static jcuda.driver.JCudaDriver.cuEventElapsedTime;
import static jcuda.driver.JCudaDriver.cuEventRecord;
import static jcuda.driver.JCudaDriver.cuStreamCreate;
import static jcuda.driver.JCudaDriver.cuStreamDestroy;
import static jcuda.driver.JCudaDriver.cuStreamSynchronize;

import java.util.Collections;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import jcuda.CudaException;
import jcuda.driver.CUevent;
import jcuda.driver.CUstream;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.DeviceRegion;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionProfile;
import org.kvflow.kernels.api.ImmutableTaskGraph;
import org.kvflow.kernels.api.KernelBackend;
import org.kvflow.kernels.api.KernelFallbackException;

/**
 * One plan on the cuda device: every array in one device buffer shared by all its graphs and
 * tasks, one stream, and each task's launch fixed when the plan is built. {@link #execute()}
 * copies to the device only what the host changed, enqueues every launch without waiting,
 * copies back what the graphs ask for and synchronises the stream once; each task's kernel time
 * comes from a pair of CUDA events around its launches. A page memory of the same device may
 * read or fill an array where it lies ({@link #deviceRegion}). Not thread-safe.
 */
final class CudaSession implements KernelBackend.Session, KernelBackend.InPlaceArrays {
    private final CudaContext context;
    private final Device device;
    private final List<ImmutableTaskGraph> graphs;
    private final DeviceArrays buffers;
    private final List<List<Launch>> launches;
    private final Set<Object> persisted = Collections.newSetFromMap(new IdentityHashMap<>());
    private final CUstream stream = new CUstream();
    private final Map<Launch, CUevent[]> events = new IdentityHashMap<>();
    private boolean executed;
    /** Arrays written in place on the device since the last execute: their host copies are not sent. */
    private final Set<Object> writtenOnDevice = Collections.newSetFromMap(new IdentityHashMap<>());

    CudaSession(CudaContext context, Device device, List<ImmutableTaskGraph> graphs, DeviceArrays buffers, List<List<Launch>> launches) {
        this.context = context;
        this.device = device;
        this.graphs = graphs;
        this.buffers = buffers;
        this.launches = launches;
        graphs.forEach(g -> persisted.addAll(g.persisted()));
        context.makeCurrent();
        cuStreamCreate(stream, 0);
        for (List<Launch> graph : launches) {
            for (Launch l : graph) {
                CUevent start = new CUevent();
                CUevent stop = new CUevent();
                cuEventCreate(start, 0);
                cuEventCreate(stop, 0);
                events.put(l, new CUevent[] {start, stop});
            }
        }
    }

    @Override
    public ExecutionProfile execute() {
        context.makeCurrent();
        long toDevice = 0;
        long toHost = 0;
        for (ImmutableTaskGraph g : graphs) {
            for (ImmutableTaskGraph.Transfer tr : g.toDevice()) {
                if ((!executed || tr.mode() == DataTransferMode.EVERY_EXECUTION) && !writtenOnDevice.contains(tr.array())) {
                    buffers.get(tr.array()).hostWrote();
                }
            }
        }
        executed = true;
        writtenOnDevice.clear();
        for (List<Launch> graph : launches) {
            for (Launch l : graph) {
                toHost += l.check(false);
            }
        }
        for (int i = 0; i < graphs.size(); i++) {
            for (Launch l : launches.get(i)) {
                toHost += l.check(true);
                for (DeviceArray d : l.reads()) {
                    toDevice += d.ensureOnDevice();
                }
                CUevent[] pair = events.get(l);
                try {
                    cuEventRecord(pair[0], stream);
                    l.enqueue(stream);
                    cuEventRecord(pair[1], stream);
                } catch (CudaException e) {
                    throw new KernelFallbackException(l.task(), device, "nothing (launch failed: " + e.getMessage() + ")", e);
                }
                l.writes().forEach(DeviceArray::deviceWrote);
            }
            for (ImmutableTaskGraph.Transfer tr : graphs.get(i).toHost()) {
                if (tr.mode() != DataTransferMode.UNDER_DEMAND) {
                    toHost += buffers.get(tr.array()).ensureOnHost();
                }
            }
        }
        cuStreamSynchronize(stream);
        Map<String, Long> nanos = new HashMap<>();
        float[] ms = new float[1];
        for (List<Launch> graph : launches) {
            for (Launch l : graph) {
                CUevent[] pair = events.get(l);
                cuEventElapsedTime(ms, pair[0], pair[1]);
                nanos.merge(l.task(), (long) (ms[0] * 1e6), Long::sum);
            }
        }
        return new ExecutionProfile(nanos, toDevice, toHost);
    }

    @Override
    public void transferToHost(Object array) {
        if (buffers.contains(array)) {
            context.makeCurrent();
            buffers.get(array).ensureOnHost();
        }
    }

    @Override
    public Optional<KernelBackend.InPlaceArrays> inPlaceArrays() {
        return Optional.of(this);
    }

    @Override
    public Optional<DeviceRegion> deviceRegion(Object array) {
        DeviceArray d = arrayOf(array);
        context.makeCurrent();
        d.ensureOnDevice();
        return Optional.of(new DeviceRegion(device, d.address().address(), d.bytes()));
    }

    @Override
    public Optional<DeviceRegion> deviceRegionToFill(Object array) {
        DeviceArray d = arrayOf(array);
        return Optional.of(new DeviceRegion(device, d.address().address(), d.bytes()));
    }

    @Override
    public void writtenOnDevice(Object array) {
        arrayOf(array).deviceWrote();
        writtenOnDevice.add(array);
    }

    private DeviceArray arrayOf(Object array) {
        DeviceArray d = buffers.get(array);
        if (d == null) {
            throw new IllegalArgumentException("a " + array.getClass().getSimpleName() + " that is not an array of this plan");
        }
        return d;
    }

    @Override
    public void close() {
        context.makeCurrent();
        cuStreamSynchronize(stream);
        for (CUevent[] pair : events.values()) {
            cuEventDestroy(pair[0]);
            cuEventDestroy(pair[1]);
        }
        events.clear();
        launches.forEach(graph -> graph.forEach(Launch::close));
        cuStreamDestroy(stream);
        buffers.release(persisted, false);
    }
}
