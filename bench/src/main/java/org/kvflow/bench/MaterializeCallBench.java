package org.kvflow.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.PageStore;

/**
 * Where a full-view gather's call spends what its kernel does not: the gather of GpuPrefillBench's
 * full length (DeepSeek V3.2 fp8, one layer, CP8 owners on this GPU) timed by its parts, after
 * {@code WARMUP} calls: the whole {@code PageStore.gatherFrom} (CUDA events on the memory's stream,
 * and the host's wall time), the memory's {@code copyPages} of the same prebuilt batch (wall), the
 * kernel alone (events around its launch), the same call for one page a component (the fixed cost
 * of a call), and one {@code cuMemcpyDtoD} of the same bytes. Medians of {@code ITERATIONS}; one
 * JSON object per line. Arguments: cp (8), tokens (131072).
 */
public final class MaterializeCallBench {
    private static final int PS = 64;
    private static final int WARMUP = 500;
    private static final int ITERATIONS = 101;

    private MaterializeCallBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("MaterializeCallBench");
        int cp = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int tokens = args.length > 1 ? Integer.parseInt(args[1]) : 131_072;
        KvLayout layout = RankLayoutBench.v32Fp8(1);
        int pages = tokens / PS;
        int perRank = pages / cp + 64;
        OwnershipMap ownership = new OwnershipMap(cp, PS);
        long[] ids = RankLayoutBench.sample(new SplittableRandom(7), pages, (long) cp * perRank);
        long[][] src = new long[cp][];
        long[][] dst = new long[cp][];
        RankLayoutBench.split(ownership, ids, src, dst);
        try (CudaBench gpu = CudaBench.open(0)) {
            CudaPageMemory cuda = gpu.memory();
            List<PageStore> owners = new ArrayList<>();
            for (int r = 0; r < cp; r++) {
                owners.add(PageStore.allocate(cuda, "rank " + r, layout, PS, perRank));
            }
            PageStore view = PageStore.allocate(cuda, "full view", layout, PS, pages);
            List<PageCopy> batch = new ArrayList<>();
            List<PageCopy> onePage = new ArrayList<>();
            for (int r = 0; r < cp; r++) {
                for (KvComponent c : KvComponent.values()) {
                    batch.add(new PageCopy(owners.get(r).buffer(0, c), src[r], view.buffer(0, c), dst[r]));
                    onePage.add(new PageCopy(owners.get(r).buffer(0, c), new long[] {src[r][0]}, view.buffer(0, c), new long[] {dst[r][0]}));
                }
            }
            Runnable gather = () -> view.gatherFrom(owners, List.of(src), List.of(dst));
            long bytes = 2L * pages * (view.mlaPageBytes() + view.indexPageBytes());
            for (int i = 0; i < WARMUP; i++) {
                gather.run();
                cuda.copyPages(batch);
                cuda.copyPages(onePage);
            }
            print("gather_events", bytes, events(gpu, gather));
            print("gather_wall", bytes, wall(gather));
            print("copy_pages_wall", bytes, wall(() -> cuda.copyPages(batch)));
            print("copy_pages_events", bytes, events(gpu, () -> cuda.copyPages(batch)));
            print("one_page_wall", 0, wall(() -> cuda.copyPages(onePage)));
            print("one_page_events", 0, events(gpu, () -> cuda.copyPages(onePage)));
            RankLayoutBench.reportKernel(gpu, "gather_kernel", gather);
            RankLayoutBench.dtod(gpu, "memcpy_dtod_same_bytes", (long) pages * view.mlaPageBytes(), (long) pages * view.indexPageBytes());
        }
    }

    private static double[] events(CudaBench gpu, Runnable work) {
        double[] ms = new double[ITERATIONS];
        for (int i = 0; i < ITERATIONS; i++) {
            ms[i] = gpu.memoryMillis(work);
        }
        return ms;
    }

    private static double[] wall(Runnable work) {
        double[] ms = new double[ITERATIONS];
        for (int i = 0; i < ITERATIONS; i++) {
            long t0 = System.nanoTime();
            work.run();
            ms[i] = (System.nanoTime() - t0) / 1e6;
        }
        return ms;
    }

    private static void print(String name, long bytes, double[] ms) {
        Arrays.sort(ms);
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"median_ms\":%.4f,\"p10_ms\":%.4f,\"p90_ms\":%.4f,\"min_ms\":%.4f,\"gbps\":%.1f}%n", name,
                ms[ITERATIONS / 2], ms[ITERATIONS / 10], ms[ITERATIONS * 9 / 10], ms[0], bytes == 0 ? 0.0 : bytes / (ms[ITERATIONS / 2] * 1e6));
    }
}
