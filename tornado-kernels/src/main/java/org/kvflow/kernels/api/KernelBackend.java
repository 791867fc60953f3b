package org.kvflow.kernels.api;

import java.util.List;

/**
 * A way to run task graphs (plain Java, Aparapi/OpenCL, CUDA; a TornadoVM module would be one more),
 * found through {@link java.util.ServiceLoader}. Implementations are thread-safe; a
 * {@link Session} is not.
 */
public interface KernelBackend {
    /** The selector prefix: {@code java}, {@code opencl}, {@code cuda}. */
    String name();

    /** The devices found here, in index order; empty (never an error) when there are none. */
    List<Device> devices();

    /** Why {@link #devices()} is empty, for error messages; empty string when it is not. */
    default String unavailableReason() {
        return "";
    }

    /**
     * Prepares the graphs of one plan to run on {@code device} (one of {@link #devices()}): binds
     * or compiles every kernel and takes over the arrays the graphs consume. Every problem that can
     * be found before running is thrown here.
     *
     * @throws KernelCompileException if a task's kernel cannot run on the device
     */
    Session open(List<ImmutableTaskGraph> graphs, Device device);

    /** One plan's graphs bound to one device: their kernels and device buffers. */
    interface Session extends AutoCloseable {
        /** Runs every graph once, in order, moving data as the transfer modes say; returns when the outputs are on the host. */
        ExecutionProfile execute();

        /** Copies {@code array} (an {@code UNDER_DEMAND} output) from the device now. */
        void transferToHost(Object array);

        /** {@return the plan's arrays as they lie in device memory; empty where the device's arrays are host arrays} */
        default java.util.Optional<InPlaceArrays> inPlaceArrays() {
            return java.util.Optional.empty();
        }

        /** Frees the device buffers, except those a graph persists on the device. */
        @Override
        void close();
    }

    /**
     * A session's arrays in device memory, where page memories read and write them in place: the
     * capability a {@link Session} has when its device's arrays are not host arrays.
     */
    interface InPlaceArrays {
        /**
         * Where {@code array} lies in device memory, its device copy made current first; empty
         * where it lies where no page memory can reach it.
         *
         * @throws IllegalArgumentException if {@code array} is not an array of this plan
         */
        java.util.Optional<DeviceRegion> deviceRegion(Object array);

        /**
         * Where {@code array} lies in device memory, for a writer that fills all of it: the host
         * copy is not sent first.
         *
         * @throws IllegalArgumentException if {@code array} is not an array of this plan
         */
        java.util.Optional<DeviceRegion> deviceRegionToFill(Object array);

        /**
         * Something outside the plan's kernels wrote {@code array}'s device copy: the next
         * {@link Session#execute()} reads it there and does not send the host copy.
         */
        void writtenOnDevice(Object array);
    }
}
