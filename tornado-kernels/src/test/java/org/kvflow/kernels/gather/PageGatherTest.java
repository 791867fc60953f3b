package org.kvflow.kernels.gather;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;
import org.kvflow.kernels.api.TaskGraph;

/** Page gather and scatter: the OpenCL twin against the Java reference, and bad page lists refused before launch. */
class PageGatherTest {
    private static LongArray randomPool(Random rnd, int pages, int pageElems) {
        long[] pool = new long[pages * pageElems];
        for (int i = 0; i < pool.length; i++) {
            pool[i] = rnd.nextLong();
        }
        return LongArray.fromArray(pool);
    }

    private static int[] randomIds(Random rnd, int n, int poolPages) {
        int[] ids = new int[n];
        for (int k = 0; k < n; k++) {
            ids[k] = rnd.nextInt(poolPages);
        }
        return ids;
    }

    private static Device openCl() {
        var device = Devices.openCl();
        assumeTrue(device.isPresent(), "no OpenCL device (install pocl-opencl-icd): " + Devices.all());
        return device.orElseThrow();
    }

    /** Page sizes below, at and above the work-group size, and ones that leave a tail; an empty list. */
    @Tag("opencl")
    @ParameterizedTest
    @CsvSource({"1, 7, 3", "5248, 40, 33", "256, 16, 16", "1023, 9, 5", "1025, 9, 4", "64, 12, 0"})
    void openClGatherEqualsTheJavaReference(int pageElems, int poolPages, int pages) {
        Random rnd = new Random(pageElems * 31L + pages);
        LongArray pool = randomPool(rnd, poolPages, pageElems);
        int[] ids = randomIds(rnd, pages, poolPages);
        try (PageGather java = new PageGather(pool, pageElems, pages, Devices.java());
             PageGather cl = new PageGather(pool, pageElems, pages, openCl())) {
            long[] expected = java.gather(ids).clone();
            assertThat(cl.gather(ids)).isEqualTo(expected);
            int[] again = randomIds(rnd, pages, poolPages); // the page list moves every execution, the pool once
            assertThat(cl.gather(again)).isEqualTo(java.gather(again));
        }
    }

    @Tag("opencl")
    @Test
    void openClScatterEqualsTheJavaReference() {
        Random rnd = new Random(7);
        int pageElems = 777;
        LongArray view = randomPool(rnd, 6, pageElems);
        IntArray ids = IntArray.fromArray(new int[] {9, 0, 4, 11, 2, 7});
        long[] expected = new long[12 * pageElems];
        GatherKernels.scatterPages(view, ids, pageElems, LongArray.fromArray(expected));
        LongArray pool = new LongArray(12 * pageElems);
        TaskGraph graph = new TaskGraph("writeBack").transferToDevice(DataTransferMode.EVERY_EXECUTION, view, ids)
                .task("scatter", GatherKernels::scatterPages, view, ids, pageElems, pool)
                .transferToHost(DataTransferMode.UNDER_DEMAND, pool);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(openCl())) {
            plan.execute().transferToHost(pool);
        }
        assertThat(pool.toHeapArray()).isEqualTo(expected);
    }

    @Test
    void outOfRangePagesAreRefusedBeforeAnyLaunchNamingTheEntry() {
        LongArray pool = randomPool(new Random(1), 4, 8);
        try (PageGather gather = new PageGather(pool, 8, 3, Devices.java())) {
            assertThatThrownBy(() -> gather.gather(new int[] {0, 4, 1})).isInstanceOf(PageOutOfRangeException.class)
                    .hasMessage("page list: entry 1 names page 4, outside [0, 4)");
            assertThatThrownBy(() -> gather.gather(new int[] {-1, 0, 1})).isInstanceOf(PageOutOfRangeException.class)
                    .hasMessageContaining("entry 0 names page -1");
            assertThatThrownBy(() -> gather.gather(new int[] {0, 1})).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("page list of 2 entries; this gather takes 3");
            assertThat(gather.gather(new int[] {3, 3, 0})).hasSize(24); // still usable after refusals
        }
    }

    @Test
    void mismatchedPoolAndPageSizesAreRefused() {
        assertThatThrownBy(() -> new PageGather(new LongArray(10), 3, 1, Devices.java())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pool of 10 words is not a whole number of 3-word pages");
        assertThatThrownBy(() -> new PageGather(new LongArray(10), 0, 1, Devices.java())).isInstanceOf(IllegalArgumentException.class);
    }
}
