package org.kvflow.kernels.api;

/**
 * A place kernels run: {@code backend} ("java", "opencl", "cuda"), its index within that backend
 * ({@code opencl:<index>}, {@code cuda:<index>}), the device's own name, and its kind, which orders {@code auto}.
 */
public record Device(String backend, int index, String name, Kind kind) {
    /** What the device is; {@code auto} prefers GPU, then CPU OpenCL, then the JVM. */
    public enum Kind { JVM, CPU, GPU }

    /** The selector that names this device: {@code java}, {@code opencl:<n>} or {@code cuda:<n>}. */
    public String selector() {
        return kind == Kind.JVM ? backend : backend + ":" + index;
    }

    @Override
    public String toString() {
        return selector() + " (" + name + ")";
    }
}
