package org.kvflow.kernels.api;

import java.util.Map;

/**
 * What one {@link ExecutionPlan#execute()} cost on its device: each task's kernel time in
 * nanoseconds, keyed {@code "<graph>.<task>"} (device events where the backend has them, else the
 * wall time of the launch), and the bytes that crossed between host and device in each
 * direction. Under-demand copies made later are not counted.
 */
public record ExecutionProfile(Map<String, Long> taskNanos, long bytesToDevice, long bytesToHost) {
    public ExecutionProfile {
        taskNanos = Map.copyOf(taskNanos);
    }

    /** Bytes that crossed the host boundary, both directions. */
    public long hostBytes() {
        return bytesToDevice + bytesToHost;
    }

    /** The kernel time of every task together. */
    public long kernelNanos() {
        return taskNanos.values().stream().mapToLong(Long::longValue).sum();
    }
}
