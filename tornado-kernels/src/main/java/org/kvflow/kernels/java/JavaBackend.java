package org.kvflow.kernels.java;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.ExecutionProfile;
import org.kvflow.kernels.api.ImmutableTaskGraph;
import org.kvflow.kernels.api.KernelBackend;

/**
 * Backend {@code java}: runs each task's {@code *Kernels} method as written (their outer loops are
 * parallel streams, so the common fork-join pool spreads them over the cores). Host arrays are
 * the device arrays, so transfers cost nothing and persisting or consuming an array changes
 * nothing. The reference every other backend is tested against.
 */
public final class JavaBackend implements KernelBackend {
    private static final Device JVM = new Device("java", 0, "Java reference (" + Runtime.version() + ")", Device.Kind.JVM);

    @Override
    public String name() {
        return "java";
    }

    @Override
    public List<Device> devices() {
        return List.of(JVM);
    }

    @Override
    public Session open(List<ImmutableTaskGraph> graphs, Device device) {
        return new Session() {
            @Override
            public ExecutionProfile execute() {
                Map<String, Long> nanos = new HashMap<>();
                for (ImmutableTaskGraph g : graphs) {
                    for (ImmutableTaskGraph.Task t : g.tasks()) {
                        long start = System.nanoTime();
                        t.runReference();
                        nanos.put(g.name() + "." + t.id(), System.nanoTime() - start);
                    }
                }
                return new ExecutionProfile(nanos, 0, 0);
            }

            @Override
            public void transferToHost(Object array) {
                // host memory is the device memory
            }

            @Override
            public void close() {
                // nothing held
            }
        };
    }
}
