package org.kvflow.kernels.api;

import org.jspecify.annotations.Nullable;
import org.kvflow.core.KvflowException;

/**
 * A task's kernel cannot be made to run on the plan's device: it has no twin there, or its
 * translation or compilation failed. Raised when the plan is built, before anything runs; names
 * the kernel, the device and the reason.
 */
public final class KernelCompileException extends KvflowException {
    private final String kernel;

    public KernelCompileException(String kernel, Device device, String reason, @Nullable Throwable cause) {
        super("kernel " + kernel + " cannot run on " + device.selector() + ": " + reason, cause);
        this.kernel = kernel;
    }

    /** The kernel method, {@code package.Class.method}. */
    public String kernel() {
        return kernel;
    }
}
