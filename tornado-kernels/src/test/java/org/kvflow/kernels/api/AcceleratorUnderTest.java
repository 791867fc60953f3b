package org.kvflow.kernels.api;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Optional;

/**
 * The device the {@code accelerator}-tagged kernel tests run on: the best device of the backend
 * that {@code -Dkvflow.test.device} names ({@code opencl} by default, {@code cuda} on the GPU
 * machine), or a named device such as {@code cuda:0}. A test skips, saying why, when it is absent.
 */
public final class AcceleratorUnderTest {
    private AcceleratorUnderTest() {}

    /** The selector asked for. */
    public static String selector() {
        return System.getProperty("kvflow.test.device", "opencl");
    }

    /** The device, if it is here. */
    public static Optional<Device> find() {
        String s = selector();
        return s.contains(":") ? Devices.all().stream().filter(d -> d.selector().equals(s)).findFirst() : Devices.best(s);
    }

    /** The device; skips the calling test with the reason when it is absent. */
    public static Device get() {
        Optional<Device> d = find();
        assumeTrue(d.isPresent(), () -> "no device '" + selector() + "' (-Dkvflow.test.device; OpenCL needs pocl-opencl-icd): found " + Devices.all());
        return d.orElseThrow();
    }
}
