package org.kvflow.kernels.api;

import org.jspecify.annotations.Nullable;
import org.kvflow.core.KvflowException;

/**
 * A task did not run on the device it was given (Aparapi fell back to its Java thread pool, or
 * the launch failed). Raised instead of returning results computed somewhere else.
 */
public final class KernelFallbackException extends KvflowException {
    private final String task;

    public KernelFallbackException(String task, Device requested, String actual, @Nullable Throwable cause) {
        super("task " + task + " was to run on " + requested + " but ran on " + actual, cause);
        this.task = task;
    }

    public String task() {
        return task;
    }
}
