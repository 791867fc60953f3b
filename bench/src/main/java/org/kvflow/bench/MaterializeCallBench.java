package org.kvflow.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import jcuda.driver.CUdeviceptr;
import jcuda.driver.CUstream;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvLayout;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.cuda.LaunchClock;
import org.kvflow.pages.KvComponent;
import org.kvflow.pages.PageCopy;
import org.kvflow.pages.PageStore;

/**
 * Where a full-view gather's call spends what its kernel does not: the gather of GpuPrefillBench's
 * full length (DeepSeek V3.2 fp8, one layer, CP8 owners on this GPU), after {@code WARMUP} calls,
 * each call cut by the host's clock into the work before the launch, the launch call itself and
 * the wait after it (a launch clock that notes when the memory's launch starts and ends), for the
 * whole {@code PageStore.gatherFrom}, the same gather prepared once ({@code PreparedGather}), the memory's {@code copyPages} of the same batch, and that
 * batch cut to one page a row (the fixed cost of a call), and two pieces of the work before the
 * launch alone (making the context current, checking the batch); beside them the gather timed by CUDA
 * events on the memory's stream, and a plain copy of 4 KiB and of the view's bytes waited for the
 * same way (the baseline's fixed cost and the copy). Medians of {@code ITERATIONS}; one JSON
 * object per line. Arguments: cp (8), tokens (131072), layers (61, the real model's full view; 1 is one layer's).
 */
public final class MaterializeCallBench {
    private static final int PS = OwnedRequest.PS;
    private static final int WARMUP = 500;
    private static final int ITERATIONS = 201;

    private MaterializeCallBench() {}

    /** Notes when the memory's one launch of a call starts and returns, and on which stream. */
    private static final class PartsClock implements LaunchClock {
        long started;
        long launched;
        CUstream stream;

        @Override
        public void launch(CUstream on, Runnable launch) {
            stream = on;
            started = System.nanoTime();
            launch.run();
            launched = System.nanoTime();
        }
    }

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("MaterializeCallBench");
        OwnedRequest request = OwnedRequest.fromArgs(args);
        int cp = request.cp();
        int layers = request.layers();
        KvLayout layout = request.layout();
        int pages = request.pages();
        int perRank = request.perRank();
        long[][] src = request.src();
        long[][] dst = request.dst();
        PartsClock clock = new PartsClock();
        try (CudaPageMemory cuda = new CudaPageMemory(0, clock); CudaBaseline baseline = new CudaBaseline(cuda.device())) {
            List<PageStore> owners = new ArrayList<>();
            for (int r = 0; r < cp; r++) {
                owners.add(PageStore.allocate(cuda, "rank " + r, layout, PS, perRank));
            }
            PageStore view = PageStore.allocate(cuda, "full view", layout, PS, pages);
            List<PageCopy> batch = new ArrayList<>();
            List<PageCopy> onePage = new ArrayList<>();
            for (int r = 0; r < cp; r++) {
                long[] first = {src[r][0]};
                long[] firstAt = {dst[r][0]};
                for (KvComponent c : KvComponent.values()) {
                    for (int l = 0; l < layers; l++) {
                        batch.add(new PageCopy(owners.get(r).buffer(l, c), src[r], view.buffer(l, c), dst[r]));
                        onePage.add(new PageCopy(owners.get(r).buffer(l, c), first, view.buffer(l, c), firstAt));
                    }
                }
            }
            long bytes = 2L * pages * layers * (view.mlaPageBytes() + view.indexPageBytes());
            parts("gather", bytes, clock, () -> view.gatherFrom(owners, List.of(src), List.of(dst)));
            org.kvflow.pages.PreparedGather prepared = org.kvflow.pages.PreparedGather.of(view, owners, List.of(src), List.of(dst));
            parts("prepared", bytes, clock, prepared::run);
            parts("copy_pages", bytes, clock, () -> cuda.copyPages(batch));
            parts("one_page_a_row", 0, clock, () -> cuda.copyPages(onePage));
            print("make_current_wall", 0, wall(() -> cuda.device().makeCurrent()));
            print("check_pairs_wall", 0, wall(() -> org.kvflow.pages.PageCopies.checkPairs(batch)));
            double[] events = new double[ITERATIONS];
            for (int i = 0; i < ITERATIONS; i++) {
                cuda.device().makeCurrent();
                events[i] = CudaBaseline.between(clock.stream, () -> view.gatherFrom(owners, List.of(src), List.of(dst)));
            }
            print("gather_events", bytes, events);
            for (int i = 0; i < ITERATIONS; i++) {
                cuda.device().makeCurrent();
                events[i] = CudaBaseline.between(clock.stream, prepared::run);
            }
            print("prepared_events", bytes, events);
            prepared.close();
            CUdeviceptr small = baseline.deviceBytes(4096);
            CUdeviceptr smallTo = baseline.deviceBytes(4096);
            print("dtod_4kib_wall", 0, wall(() -> baseline.copy(smallTo, small, 4096)));
            long viewMla = (long) pages * layers * view.mlaPageBytes();
            long viewIndex = (long) pages * layers * view.indexPageBytes();
            CUdeviceptr[] from = {baseline.deviceBytes(viewMla), baseline.deviceBytes(viewIndex)};
            CUdeviceptr[] to = {baseline.deviceBytes(viewMla), baseline.deviceBytes(viewIndex)};
            print("dtod_view_wall", bytes, wall(() -> {
                baseline.copy(to[0], from[0], viewMla);
                baseline.copy(to[1], from[1], viewIndex);
            }));
            double[] dtodEvents = new double[ITERATIONS];
            for (int i = 0; i < ITERATIONS; i++) {
                dtodEvents[i] = baseline.timeMillis(() -> {
                    baseline.copy(to[0], from[0], viewMla);
                    baseline.copy(to[1], from[1], viewIndex);
                });
            }
            print("dtod_view_events", bytes, dtodEvents);
        }
    }

    /** {@code work}'s calls cut at its launch: before, the launch call, after (the wait), and whole; medians in ms. */
    private static void parts(String name, long bytes, PartsClock clock, Runnable work) {
        for (int i = 0; i < WARMUP; i++) {
            work.run();
        }
        double[] before = new double[ITERATIONS];
        double[] launch = new double[ITERATIONS];
        double[] after = new double[ITERATIONS];
        double[] whole = new double[ITERATIONS];
        for (int i = 0; i < ITERATIONS; i++) {
            long t0 = System.nanoTime();
            work.run();
            long t1 = System.nanoTime();
            before[i] = (clock.started - t0) / 1e6;
            launch[i] = (clock.launched - clock.started) / 1e6;
            after[i] = (t1 - clock.launched) / 1e6;
            whole[i] = (t1 - t0) / 1e6;
        }
        print(name + "_before_launch", 0, before);
        print(name + "_launch_call", 0, launch);
        print(name + "_wait", 0, after);
        print(name + "_wall", bytes, whole);
    }

    private static double[] wall(Runnable work) {
        for (int i = 0; i < WARMUP; i++) {
            work.run();
        }
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
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"median_ms\":%.4f,\"p10_ms\":%.4f,\"p90_ms\":%.4f,\"gbps\":%.1f}%n", name,
                ms[ITERATIONS / 2], ms[ITERATIONS / 10], ms[ITERATIONS * 9 / 10], bytes == 0 ? 0.0 : bytes / (ms[ITERATIONS / 2] * 1e6));
    }
}
