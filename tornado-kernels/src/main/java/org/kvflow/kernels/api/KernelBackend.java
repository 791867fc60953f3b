package org.kvflow.kernels.api;

import java.util.List;

/**
 * A way to run task graphs (plain Java, Aparapi/OpenCL; a TornadoVM module would be one more),
 * found through {@link java.util.ServiceLoader}. Implementations are thread-safe; a
 * {@link Session} is not.
 */
public interface KernelBackend {
    /** The selector prefix: {@code java}, {@code opencl}. */
    String name();

    /** The devices found here, in index order; empty (never an error) when there are none. */
    List<Device> devices();

    /** Why {@link #devices()} is empty, for error messages; empty string when it is not. */
    default String unavailableReason() {
        return "";
    }

    /** Prepares {@code graph} to run on {@code device} (one of {@link #devices()}). */
    Session open(ImmutableTaskGraph graph, Device device);

    /** One graph bound to one device: its kernels and device buffers. */
    interface Session extends AutoCloseable {
        /** Runs every task once, moving data as the graph's transfer modes say. */
        void execute();

        /** Copies {@code array} (an {@code UNDER_DEMAND} output) from the device now. */
        void transferToHost(Object array);

        /** Frees the device buffers. */
        @Override
        void close();
    }
}
