package org.kvflow.kernels.nsa;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.gather.GatherKernels;

/** Buffers grow by doubling, fall back to the exact need where doubling would not fit, and are reused while they cover a call. */
class GrowingBuffersTest {
    private record Built(long[] capacity, ExecutionPlan plan) {}

    private static ExecutionPlan plan() {
        LongPages a = LongPages.allocate(1, 1);
        return new ExecutionPlan(new TaskGraph("g").transferToDevice(DataTransferMode.EVERY_EXECUTION, a)
                .task("t", GatherKernels::gatherPages, a, new IntArray(0), a).snapshot()).withDevice(Devices.java());
    }

    @Test
    void growsByDoublingWithinWhatFits() {
        List<long[]> builds = new ArrayList<>();
        try (GrowingBuffers<Built> buffers = new GrowingBuffers<>(2, c -> {
            builds.add(c.clone());
            return new Built(c, plan());
        }, Built::plan, c -> c[0] * c[1] <= 1_000)) {
            Built first = buffers.atLeast(0, 0);
            assertThat(first.capacity()).containsExactly(1, 1);
            assertThat(buffers.atLeast(0, 0)).isSameAs(first);
            assertThat(buffers.atLeast(3, 10).capacity()).containsExactly(3, 10);
            assertThat(buffers.atLeast(4, 10).capacity()).containsExactly(6, 20);
            Built covered = buffers.atLeast(5, 15);
            assertThat(covered.capacity()).containsExactly(6, 20);
            assertThat(buffers.atLeast(7, 100).capacity()).as("doubled 12 x 100 would not fit").containsExactly(7, 100);
            assertThat(builds).hasSize(4);
            buffers.close();
            assertThat(buffers.atLeast(1, 1)).isNotSameAs(covered);
        }
    }
}
