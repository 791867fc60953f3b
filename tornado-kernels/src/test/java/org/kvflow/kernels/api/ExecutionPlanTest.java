package org.kvflow.kernels.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.gather.GatherKernels;

/** Plans refuse misuse with typed errors, and a kernel with no OpenCL twin never runs elsewhere silently. */
class ExecutionPlanTest {
    /** A kernel only the Java backend knows. */
    public static void javaOnly(LongArray a, IntArray b, int c, LongArray d) {
        d.set(0, a.get(0) + b.getSize() + c);
    }

    private static ImmutableTaskGraph gather(LongPages pool, IntArray ids, LongPages view) {
        return new TaskGraph("g").transferToDevice(DataTransferMode.FIRST_EXECUTION, pool, ids)
                .task("pages", GatherKernels::gatherPages, pool, ids, view).transferToHost(DataTransferMode.EVERY_EXECUTION, view).snapshot();
    }

    @Test
    void aPlanNeedsAGraphAndKeepsItsDeviceOnceItRan() {
        assertThatThrownBy(ExecutionPlan::new).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("an execution plan needs at least one task graph");
        LongPages pool = LongPages.of(LongArray.fromArray(new long[] {5, 6}), 1);
        LongPages view = LongPages.allocate(1, 1);
        try (ExecutionPlan plan = new ExecutionPlan(gather(pool, IntArray.fromArray(new int[] {1}), view)).withDevice(Devices.java())) {
            assertThat(plan.execute().device()).isEqualTo(Devices.java());
            assertThat(view.get(0, 0)).isEqualTo(6);
            assertThatThrownBy(() -> plan.withDevice(Devices.java())).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("plan already runs on java (Java reference");
        }
    }

    @Tag("opencl")
    @Test
    void aKernelWithoutAnOpenClTwinIsRefusedNamingIt() {
        Device cl = Devices.openCl().orElse(null);
        assumeTrue(cl != null, "no OpenCL device (install pocl-opencl-icd): " + Devices.all());
        LongArray out = new LongArray(1);
        ImmutableTaskGraph graph = new TaskGraph("g").task("t", ExecutionPlanTest::javaOnly, new LongArray(1), new IntArray(0), 1, out)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, out).snapshot();
        try (ExecutionPlan plan = new ExecutionPlan(graph).withDevice(cl)) {
            assertThatThrownBy(plan::execute).isInstanceOfSatisfying(KernelFallbackException.class, e -> {
                assertThat(e.task()).isEqualTo("g.t");
                assertThat(e.getMessage()).isEqualTo("task g.t was to run on " + cl + " but ran on nothing: kernel "
                        + "org.kvflow.kernels.api.ExecutionPlanTest.javaOnly has no OpenCL twin");
            });
        }
        try (ExecutionPlan plan = new ExecutionPlan(graph).withDevice(Devices.java())) {
            plan.execute();
            assertThat(out.get(0)).isEqualTo(1);
        }
    }
}
