package org.kvflow.kernels.api;

import java.util.List;
import java.util.function.Consumer;

/**
 * A frozen {@link TaskGraph}: what an {@link ExecutionPlan} runs and a backend compiles, with the
 * arrays it leaves on the device ({@code persisted}) and takes over from an earlier plan
 * ({@code consumed}).
 */
public record ImmutableTaskGraph(String name, List<Transfer> toDevice, List<Task> tasks, List<Transfer> toHost, List<Object> persisted,
                                 List<Object> consumed) {
    /** One array moved between host and device, with its {@link DataTransferMode}. */
    public record Transfer(int mode, Object array) {}

    /**
     * One task: its id, the kernel method it names, the reference body (run as-is by the Java
     * backend) and its arguments in parameter order.
     */
    public record Task(String id, KernelRef kernel, Consumer<Object[]> reference, List<Object> args) {
        public void runReference() {
            reference.accept(args.toArray());
        }
    }
}
