package org.kvflow.kernels.api;

/** When a task graph moves an array between host and device (TornadoVM's int constants). */
public final class DataTransferMode {
    /** Copied at the first execution only; the device copy is then treated as read-only input. */
    public static final int FIRST_EXECUTION = 0;
    /** Copied at every execution. */
    public static final int EVERY_EXECUTION = 1;
    /** Device → host only when the caller asks ({@link ExecutionResult#transferToHost(Object...)}). */
    public static final int UNDER_DEMAND = 2;

    private DataTransferMode() {}

    static int check(int mode) {
        if (mode < FIRST_EXECUTION || mode > UNDER_DEMAND) {
            throw new IllegalArgumentException("data transfer mode " + mode + " is not FIRST_EXECUTION (0), EVERY_EXECUTION (1) or UNDER_DEMAND (2)");
        }
        return mode;
    }
}
