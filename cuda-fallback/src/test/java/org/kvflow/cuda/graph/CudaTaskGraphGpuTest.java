package org.kvflow.cuda.graph;

import static jcuda.driver.JCudaDriver.cuCtxSynchronize;
import static jcuda.driver.JCudaDriver.cuLaunchKernel;
import static jcuda.driver.JCudaDriver.cuMemcpyDtoH;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Path;
import java.util.SplittableRandom;
import jcuda.Pointer;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUfunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.ExecutionProfile;
import org.kvflow.kernels.api.ImmutableTaskGraph;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.gather.GatherKernels;
import org.kvflow.pages.PageOutOfRangeException;

/**
 * On the GPU machine (tag {@code cuda}): what only the cuda device promises. A pool over 2 GiB is
 * one allocation and one launch; page lists stay on the device; a bad list moves nothing; running
 * out of memory is typed and leaks nothing; closing a plan gives every byte back (every buffer it
 * allocated is freed, and the driver's free memory is back within its 2 MiB granule); an edited
 * kernel runs its new code. (The kernels' agreement with their Java references is the kernel module's
 * {@code accelerator} tests, run here with {@code -Dkvflow.test.device=cuda}.)
 */
@Tag("cuda")
class CudaTaskGraphGpuTest {
    private static Device cuda() {
        Device d = Devices.best("cuda").orElse(null);
        assumeTrue(d != null, "no CUDA device: " + Devices.all());
        return d;
    }

    private static LongPages pool(long pages, int pageElems, long seed) {
        LongPages p = LongPages.allocate(pages, pageElems);
        SplittableRandom rnd = new SplittableRandom(seed);
        for (int c = 0; c < p.chunkCount(); c++) {
            long[] words = p.chunk(c).toHeapArray();
            for (int i = 0; i < words.length; i++) {
                words[i] = rnd.nextLong();
            }
        }
        return p;
    }

    private static ImmutableTaskGraph gather(LongPages pool, IntArray ids, LongPages view) {
        return new TaskGraph("fullView").transferToDevice(DataTransferMode.FIRST_EXECUTION, pool, ids)
                .task("gather", GatherKernels::gatherPages, pool, ids, view).transferToHost(DataTransferMode.EVERY_EXECUTION, view).snapshot();
    }

    @Test
    void aPoolOverTwoGiBIsOneAllocationAndThePageListStaysOnTheDevice() {
        Device cuda = cuda();
        int pageElems = 5248; // 41,984-byte pages
        LongPages pool = pool(70_000, pageElems, 1); // 2.9 GB in two chunks
        assertThat(pool.chunkCount()).isEqualTo(2);
        SplittableRandom rnd = new SplittableRandom(2);
        int[] ids = new int[512];
        for (int k = 0; k < ids.length; k++) {
            ids[k] = k % 2 == 0 ? rnd.nextInt(pool.pagesPerChunk()) : pool.pagesPerChunk() + rnd.nextInt(70_000 - pool.pagesPerChunk());
        }
        LongPages view = LongPages.allocate(ids.length, pageElems);
        try (ExecutionPlan plan = new ExecutionPlan(gather(pool, IntArray.fromArray(ids), view)).withDevice(cuda)) {
            plan.execute();
            ExecutionProfile second = plan.execute().profile();
            assertThat(second.bytesToDevice()).isZero();
            assertThat(second.bytesToHost()).isEqualTo(8L * ids.length * pageElems);
            assertThat(second.taskNanos().get("fullView.gather")).isPositive();
        }
        for (int k = 0; k < ids.length; k++) {
            for (int i : new int[] {0, 1, pageElems / 2, pageElems - 1}) {
                assertThat(view.get(k, i)).as("view page %d word %d", k, i).isEqualTo(pool.get(ids[k], i));
            }
        }
    }

    @Test
    void aPageOutsideThePoolIsRefusedBeforeTheLaunchAndTheViewIsUntouched() {
        Device cuda = cuda();
        LongPages pool = pool(4, 8, 3);
        LongPages view = LongPages.allocate(2, 8);
        view.set(1, 7, 42);
        IntArray ids = IntArray.fromArray(new int[] {3, 4});
        try (ExecutionPlan plan = new ExecutionPlan(gather(pool, ids, view)).withDevice(cuda)) {
            assertThatThrownBy(plan::execute).isInstanceOf(PageOutOfRangeException.class)
                    .hasMessage("fullView.gather page list: entry 1 names page 4, outside [0, 4)");
            assertThat(view.get(1, 7)).isEqualTo(42);
            assertThat(view.get(0, 0)).isZero();
        }
    }

    @Test
    void aDirectCopyWithADestinationOutsideItsPoolMovesNothing() {
        Device cuda = cuda();
        LongPages from = pool(4, 8, 6);
        LongPages to = LongPages.allocate(3, 8);
        IntArray fromIds = IntArray.fromArray(new int[] {0, 1});
        IntArray toIds = IntArray.fromArray(new int[] {2, 3});
        ImmutableTaskGraph graph = new TaskGraph("move").transferToDevice(DataTransferMode.FIRST_EXECUTION, from, to, fromIds, toIds)
                .task("copy", GatherKernels::copyPages, from, fromIds, toIds, to).transferToHost(DataTransferMode.EVERY_EXECUTION, to).snapshot();
        try (ExecutionPlan plan = new ExecutionPlan(graph).withDevice(cuda)) {
            assertThatThrownBy(plan::execute).isInstanceOf(PageOutOfRangeException.class)
                    .hasMessage("move.copy destination page list: entry 1 names page 3, outside [0, 3)");
            assertThat(to.get(2, 0)).isZero();
        }
    }

    @Test
    void runningOutOfDeviceMemoryIsTypedNamesTheSizesAndLeaksNothing() {
        Device cuda = cuda();
        CudaContext context = CudaContext.of(cuda.index());
        LongPages small = pool(16, 8, 4);
        ImmutableTaskGraph graph = gather(small, IntArray.fromArray(new int[] {1}), LongPages.allocate(1, 8));
        try (ExecutionPlan warm = new ExecutionPlan(graph).withDevice(cuda)) {
            warm.execute(); // the page-move module is loaded before measuring
        }
        CUdeviceptr hog = context.allocate("test hog", context.freeBytes() - (1L << 30)); // leave 1 GiB free
        try {
            long before = context.freeBytes();
            long held = context.liveBytes();
            LongPages big = LongPages.allocate(8192, 32_768); // 2 GiB, which cannot fit
            ImmutableTaskGraph tooBig = new TaskGraph("tooBig").transferToDevice(DataTransferMode.FIRST_EXECUTION, big)
                    .task("scatter", GatherKernels::scatterPages, LongPages.allocate(1, 32_768), IntArray.fromArray(new int[] {0}), big).snapshot();
            assertThatThrownBy(() -> new ExecutionPlan(graph, tooBig).withDevice(cuda)).isInstanceOfSatisfying(DeviceMemoryException.class, e -> {
                assertThat(e.requested()).isEqualTo(1L << 31);
                assertThat(e.getMessage()).startsWith("cannot allocate 2147483648 bytes for tooBig input on the device: ").endsWith(" bytes free");
            });
            assertThat(context.liveBytes()).isEqualTo(held);
            assertThat(context.freeBytes()).isGreaterThanOrEqualTo(before);
        } finally {
            context.free(hog);
        }
    }

    @Test
    void closingAPlanGivesEveryByteBack() {
        Device cuda = cuda();
        CudaContext context = CudaContext.of(cuda.index());
        LongPages pool = pool(4096, 1024, 5); // 32 MiB
        IntArray ids = IntArray.fromArray(new int[] {5, 7, 4095});
        LongPages view = LongPages.allocate(3, 1024);
        try (ExecutionPlan warm = new ExecutionPlan(gather(pool, ids, view)).withDevice(cuda)) {
            warm.execute(); // modules and the context's own memory are in place before measuring
        }
        long before = context.liveBytes();
        long free = context.freeBytes();
        try (ExecutionPlan plan = new ExecutionPlan(gather(pool, ids, view)).withDevice(cuda)) {
            plan.execute();
            assertThat(context.liveBytes()).isEqualTo(before + (32L << 20) + 4 * 3 + 8 * 3 * 1024);
        }
        assertThat(context.liveBytes()).isEqualTo(before);
        assertThat(context.freeBytes()).isGreaterThanOrEqualTo(free - (2L << 20)); // the driver may keep a freed block a while
        assertThat(view.get(2, 1023)).isEqualTo(pool.get(4095, 1023));
    }

    @Test
    void anEditedKernelRunsItsNewCode(@TempDir Path dir) throws Exception {
        Device cuda = cuda();
        assumeTrue(ProbeKernels.available(), "no Java compiler in this runtime to edit a kernel with");
        try (ModuleCacheAt cache = new ModuleCacheAt(dir.resolve("cache"))) {
            CudaContext context = CudaContext.of(cuda.index());
            CUdeviceptr out = context.allocate("probe out", 4L * 256);
            try {
                assertThat(runProbe(context, cuda, out, dir.resolve("v1"), "out[getGlobalId()] = 1;")).isEqualTo(1);
                assertThat(runProbe(context, cuda, out, dir.resolve("v2"), "out[getGlobalId()] = getGlobalId() + 2;")).isEqualTo(257);
            } finally {
                context.free(out);
            }
        }
    }

    /** Compiles, translates, loads and launches one version of probe.Probe over 256 ints; returns out[255]. */
    private static int runProbe(CudaContext context, Device cuda, CUdeviceptr out, Path dir, String body) throws Exception {
        CudaTwinSource source = CudaBackend.translate("probe.Probe.run", ProbeKernels.compile(dir, body), 256, cuda);
        CUfunction f = context.function(source.moduleName(), "run", () -> CudaBackend.module(source, cuda));
        context.makeCurrent();
        cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, null, Pointer.to(Pointer.to(out), Pointer.to(new int[] {0})), null);
        cuCtxSynchronize();
        int[] host = new int[256];
        cuMemcpyDtoH(Pointer.to(host), out, 4L * 256);
        return host[255];
    }
}
