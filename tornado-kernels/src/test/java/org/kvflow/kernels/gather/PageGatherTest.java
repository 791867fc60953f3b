package org.kvflow.kernels.gather;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Optional;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.AcceleratorUnderTest;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.KernelFallbackException;
import org.kvflow.kernels.api.LongArray;
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.pages.PageOutOfRangeException;

/** Page gather, scatter and direct copy: the device against the Java reference, over one or several chunks, and bad page lists refused before launch. */
class PageGatherTest {
    private static LongPages randomPool(Random rnd, int pages, int pageElems, int pagesPerChunk) {
        LongPages pool = LongPages.allocate(pages, pageElems, pagesPerChunk);
        for (int c = 0; c < pool.chunkCount(); c++) {
            long[] words = pool.chunk(c).toHeapArray();
            for (int i = 0; i < words.length; i++) {
                words[i] = rnd.nextLong();
            }
        }
        return pool;
    }

    private static int[] randomIds(Random rnd, int n, int poolPages) {
        int[] ids = new int[n];
        for (int k = 0; k < n; k++) {
            ids[k] = rnd.nextInt(poolPages);
        }
        return ids;
    }

    private static long[] flat(LongPages pages) {
        long[] all = new long[Math.toIntExact(pages.pageCount() * pages.pageElems())];
        for (long p = 0; p < pages.pageCount(); p++) {
            for (int i = 0; i < pages.pageElems(); i++) {
                all[(int) p * pages.pageElems() + i] = pages.get(p, i);
            }
        }
        return all;
    }

    private static Device accelerator() {
        return AcceleratorUnderTest.get();
    }

    /** An OpenCL device whatever the accelerator under test is: for what only the OpenCL twin limits. */
    private static Device openClOnly() {
        Optional<Device> cl = Devices.openCl();
        assumeTrue(cl.isPresent(), () -> "no OpenCL device (install pocl-opencl-icd): " + Devices.all());
        return cl.orElseThrow();
    }

    /** Page sizes below, at and above the work-group size, tails, an empty list, and pools over 1–4 chunks. */
    @Tag("accelerator")
    @ParameterizedTest
    @CsvSource({"1, 7, 3, 7", "5248, 40, 33, 40", "256, 16, 16, 5", "1023, 9, 5, 3", "1025, 9, 4, 9", "64, 12, 0, 12", "300, 13, 20, 4"})
    void openClGatherEqualsTheJavaReference(int pageElems, int poolPages, int pages, int pagesPerChunk) {
        Random rnd = new Random(pageElems * 31L + pages);
        LongPages pool = randomPool(rnd, poolPages, pageElems, pagesPerChunk);
        int[] ids = randomIds(rnd, pages, poolPages);
        try (PageGather java = new PageGather(pool, pages, Devices.java());
             PageGather cl = new PageGather(pool, pages, accelerator())) {
            long[] expected = flat(java.gather(ids));
            assertThat(flat(cl.gather(ids))).isEqualTo(expected);
            int[] again = randomIds(rnd, pages, poolPages); // the page list moves every execution, the pool once
            assertThat(flat(cl.gather(again))).isEqualTo(flat(java.gather(again)));
        }
    }

    /** A view over several chunks: each work-group writes the chunk its page falls in. */
    @Tag("accelerator")
    @Test
    void openClGatherFillsAViewOfSeveralChunks() {
        Random rnd = new Random(11);
        LongPages pool = randomPool(rnd, 10, 97, 3);
        IntArray ids = IntArray.fromArray(randomIds(rnd, 14, 10));
        LongPages expected = LongPages.allocate(14, 97, 4);
        GatherKernels.gatherPages(pool, ids, expected);
        LongPages view = LongPages.allocate(14, 97, 4);
        TaskGraph graph = new TaskGraph("fullView").transferToDevice(DataTransferMode.FIRST_EXECUTION, pool, ids)
                .task("gather", GatherKernels::gatherPages, pool, ids, view)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, view);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(accelerator())) {
            plan.execute();
        }
        assertThat(view.chunkCount()).isEqualTo(4);
        assertThat(flat(view)).isEqualTo(flat(expected));
    }

    @Tag("accelerator")
    @Test
    void openClScatterEqualsTheJavaReference() {
        Random rnd = new Random(7);
        int pageElems = 777;
        LongPages view = randomPool(rnd, 6, pageElems, 6);
        IntArray ids = IntArray.fromArray(new int[] {9, 0, 4, 11, 2, 7});
        LongPages expected = LongPages.allocate(12, pageElems, 5);
        GatherKernels.scatterPages(view, ids, expected);
        LongPages pool = LongPages.allocate(12, pageElems, 5);
        TaskGraph graph = new TaskGraph("writeBack").transferToDevice(DataTransferMode.EVERY_EXECUTION, view, ids)
                .task("scatter", GatherKernels::scatterPages, view, ids, pool)
                .transferToHost(DataTransferMode.UNDER_DEMAND, pool);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(accelerator())) {
            plan.execute().transferToHost(pool);
        }
        assertThat(flat(pool)).isEqualTo(flat(expected));
    }

    /** A direct copy writes only the listed destination pages; the rest keep what they held. */
    @Tag("accelerator")
    @Test
    void aDirectCopyEqualsTheJavaReference() {
        LongPages from = randomPool(new Random(11), 9, 130, 9);
        LongPages to = randomPool(new Random(12), 7, 130, 3);
        LongPages expected = randomPool(new Random(12), 7, 130, 3);
        IntArray fromIds = IntArray.fromArray(new int[] {8, 0, 3, 3});
        IntArray toIds = IntArray.fromArray(new int[] {6, 1, 0, 4});
        GatherKernels.copyPages(from, fromIds, toIds, expected);
        assertThat(expected.get(6, 129)).isEqualTo(from.get(8, 129));
        TaskGraph graph = new TaskGraph("move").transferToDevice(DataTransferMode.FIRST_EXECUTION, from, to, fromIds, toIds)
                .task("copy", GatherKernels::copyPages, from, fromIds, toIds, to)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, to);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(accelerator())) {
            plan.execute();
        }
        assertThat(flat(to)).isEqualTo(flat(expected));
    }

    @Test
    void aCopyWhoseListsDifferInLengthIsRefusedOnEveryBackend() {
        LongPages pool = LongPages.allocate(4, 8);
        IntArray two = IntArray.fromArray(new int[] {0, 1});
        IntArray three = IntArray.fromArray(new int[] {0, 1, 2});
        String message = "page lists of a copy differ in length: 2 vs 3";
        assertThatThrownBy(() -> GatherKernels.copyPages(pool, two, three, pool)).isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        TaskGraph graph = new TaskGraph("g").task("t", GatherKernels::copyPages, pool, two, three, LongPages.allocate(4, 8));
        assertThatThrownBy(() -> new ExecutionPlan(graph.snapshot()).withDevice(Devices.java()).execute())
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        AcceleratorUnderTest.find().ifPresent(d -> assertThatThrownBy(() -> new ExecutionPlan(graph.snapshot()).withDevice(d))
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message));
    }

    /**
     * Two tasks, two twins, two OpenCL contexts: the view the first writes must reach the second.
     * A CPU device may alias its buffers with the host arrays, so it is a GPU run that can catch a
     * missing copy here.
     */
    @Tag("accelerator")
    @Test
    void aViewOneTaskGathersReachesTheTaskThatScattersIt() {
        Random rnd = new Random(3);
        LongPages pool = randomPool(rnd, 8, 300, 8);
        IntArray ids = IntArray.fromArray(new int[] {5, 1, 6});
        IntArray back = IntArray.fromArray(new int[] {0, 2, 4});
        LongPages view = LongPages.allocate(3, 300);
        LongPages copy = LongPages.allocate(5, 300);
        TaskGraph graph = new TaskGraph("roundTrip").transferToDevice(DataTransferMode.EVERY_EXECUTION, pool, ids, back)
                .task("gather", GatherKernels::gatherPages, pool, ids, view)
                .task("scatter", GatherKernels::scatterPages, view, back, copy)
                .transferToHost(DataTransferMode.EVERY_EXECUTION, copy);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(accelerator())) {
            for (int run = 0; run < 2; run++) {
                plan.execute();
                for (int k = 0; k < 3; k++) {
                    for (int i = 0; i < 300; i++) {
                        assertThat(copy.get(back.get(k), i)).isEqualTo(pool.get(ids.get(k), i));
                    }
                }
                ids.set(0, 7); // the next run gathers another page: the host change must reach the device
            }
        }
    }

    @Tag("accelerator")
    @Test
    void openClRefusesPoolsOfMoreChunksThanItsTwinBindsNamingThePool() {
        LongPages pool = LongPages.allocate(5, 8, 1);
        LongPages view = LongPages.allocate(1, 8);
        IntArray ids = IntArray.fromArray(new int[] {4});
        TaskGraph graph = new TaskGraph("g").task("t", GatherKernels::gatherPages, pool, ids, view);
        var openCl = openClOnly(); // skips here where no OpenCL device exists, not inside the expected throw
        assertThatThrownBy(() -> new ExecutionPlan(graph.snapshot()).withDevice(openCl))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the OpenCL page move takes pools of at most 4 chunks, not LongPages[5 pages of 8 words in 5 chunks]");
    }

    /** Pages copy whole, so both sides must have the same page size: refused on Java and on OpenCL alike. */
    @Test
    void sidesOfOtherPageSizesAreRefusedOnEveryBackend() {
        LongPages pool = LongPages.allocate(4, 8);
        LongPages view = LongPages.allocate(1, 6);
        IntArray ids = IntArray.fromArray(new int[] {2});
        TaskGraph graph = new TaskGraph("g").task("t", GatherKernels::gatherPages, pool, ids, view);
        String message = "pages of 8 and 6 words cannot be copied into each other";
        assertThatThrownBy(() -> new ExecutionPlan(graph.snapshot()).withDevice(Devices.java()).execute())
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message);
        assertThatThrownBy(() -> GatherKernels.scatterPages(view, ids, pool)).hasMessage("pages of 6 and 8 words cannot be copied into each other");
        AcceleratorUnderTest.find().ifPresent(cl -> assertThatThrownBy(() -> new ExecutionPlan(graph.snapshot()).withDevice(cl).execute())
                .isInstanceOf(IllegalArgumentException.class).hasMessage(message));
    }

    @Test
    void outOfRangePagesAreRefusedBeforeAnyLaunchNamingTheEntry() {
        LongPages pool = randomPool(new Random(1), 4, 8, 4);
        try (PageGather gather = new PageGather(pool, 3, Devices.java())) {
            assertThatThrownBy(() -> gather.gather(new int[] {0, 4, 1})).isInstanceOf(PageOutOfRangeException.class)
                    .hasMessage("page list: entry 1 names page 4, outside [0, 4)");
            assertThatThrownBy(() -> gather.gather(new int[] {-1, 0, 1})).isInstanceOf(PageOutOfRangeException.class)
                    .hasMessageContaining("entry 0 names page -1");
            assertThatThrownBy(() -> gather.gather(new int[] {0, 1})).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("page list of 2 entries; this gather takes 3");
            assertThat(gather.gather(new int[] {3, 3, 0}).pageCount()).isEqualTo(3); // still usable after refusals
        }
    }

    @Test
    void poolsThatAreNotWholePagesOrDoNotFitAChunkAreRefused() {
        assertThatThrownBy(() -> LongPages.of(new LongArray(10), 3)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pool of 10 words is not a whole number of 3-word pages");
        assertThatThrownBy(() -> LongPages.of(new LongArray(10), 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("pool of 10 words is not a whole number of 0-word pages");
        assertThatThrownBy(() -> LongPages.allocate(4, 8, 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("0 pages of 8 words do not fit one chunk of at most 268435453 words");
        assertThatThrownBy(() -> LongPages.maxPagesPerChunk(0)).hasMessage("pageElems must be in [1, 268435453], was 0");
        assertThatThrownBy(() -> LongPages.allocate(-1, 8)).hasMessage("pageCount must be >= 0, was -1");
        assertThatThrownBy(() -> new PageGather(LongPages.allocate(1, 1), -1, Devices.java())).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a view of -1 pages");
    }

    @Test
    void chunksHoldWholePagesUnderTwoGibibytes() {
        assertThat(LongPages.maxPagesPerChunk(5_248)).isEqualTo(51_150); // fp8 MLA pages at page size 64
        LongPages pages = LongPages.allocate(10, 3, 4);
        assertThat(pages.chunkCount()).isEqualTo(3);
        assertThat(pages.chunk(2).getSize()).isEqualTo(2 * 3);
        pages.set(9, 2, 42);
        assertThat(pages.chunk(2).get(5)).isEqualTo(42);
        assertThatThrownBy(() -> pages.get(10, 0)).isInstanceOf(IndexOutOfBoundsException.class);
    }
}
