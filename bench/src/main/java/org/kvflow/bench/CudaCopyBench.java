package org.kvflow.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.Locale;
import java.util.SplittableRandom;
import jcuda.driver.CUdeviceptr;
import org.kvflow.core.DebugMode;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.pages.PageBuffer;

/**
 * Page copies on a CUDA GPU at page size 64 with the fp8 MLA (41,984 B) and indexer (8,448 B)
 * layouts, timed with CUDA events (median of {@code ITERATIONS} after warm-up), against the
 * baselines measured in the same run: one contiguous device copy of the same bytes, and one large
 * pinned host copy for the host paths. Prints one JSON object per line. Run on the GPU machine
 * through {@code bench/device/cuda.sh}.
 */
public final class CudaCopyBench {
    private static final int MLA = 41_984;
    private static final int INDEX = 8_448;
    private static final int WARMUP = 3;
    private static final int ITERATIONS = 20;

    private CudaCopyBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("CudaCopyBench");
        int poolPages = args.length > 0 ? Integer.parseInt(args[0]) : 100_000;
        int viewPages = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
        int hostPages = args.length > 2 ? Integer.parseInt(args[2]) : 20_000;
        try (CudaBench timer = CudaBench.open(0)) {
            CudaPageMemory cuda = timer.memory();
            CudaBaseline baseline = timer.baseline();
            timer.clock().timing(true); // every report also gives the kernel alone
            System.out.println("{\"device\":\"" + cuda.deviceName() + "\"}");
            PageBuffer mla = cuda.allocate("mla pool", poolPages, MLA);
            PageBuffer index = cuda.allocate("index pool", poolPages, INDEX);
            PageBuffer mlaView = cuda.allocate("mla view", viewPages, MLA);
            PageBuffer indexView = cuda.allocate("index view", viewPages, INDEX);
            long[] src = sample(1, viewPages, poolPages);
            long[] identity = new long[viewPages];
            Arrays.setAll(identity, i -> i);
            long[] scattered = sample(2, viewPages, poolPages);
            long viewBytes = (long) viewPages * (MLA + INDEX);

            report(timer, timer::memoryMillis, "gather_mla_index", 2 * viewBytes, () -> cuda.copyComponents(List.of(mla, index), src, List.of(mlaView, indexView), identity));
            report(timer, timer::memoryMillis, "gather_mla", 2L * viewPages * MLA, () -> cuda.copyPages(mla, src, mlaView, identity));
            report(timer, timer::memoryMillis, "direct_copy_mla_index", 2 * viewBytes, () -> cuda.copyComponents(List.of(mla, index), src, List.of(mla, index), scattered));
            report(timer, timer::memoryMillis, "scatter_mla_index", 2 * viewBytes, () -> cuda.copyComponents(List.of(mlaView, indexView), identity, List.of(mla, index), scattered));
            CUdeviceptr flatA = baseline.deviceBytes(viewBytes);
            CUdeviceptr flatB = baseline.deviceBytes(viewBytes);
            report(timer, baseline::timeMillis, "memcpy_dtod_same_bytes", 2 * viewBytes, () -> baseline.copy(flatB, flatA, viewBytes));

            PageBuffer host = cuda.allocateHost("pinned host pool", hostPages, MLA);
            long[] hostIds = new long[hostPages];
            Arrays.setAll(hostIds, i -> i);
            long[] devicePages = sample(3, hostPages, poolPages);
            long hostBytes = (long) hostPages * MLA;
            report(timer, timer::memoryMillis, "d2h_pages_kernel", hostBytes, () -> cuda.copyPages(mla, devicePages, host, hostIds));
            report(timer, timer::memoryMillis, "h2d_pages_kernel", hostBytes, () -> cuda.copyPages(host, hostIds, mla, devicePages));
            CUdeviceptr rawPool = baseline.deviceBytes((long) poolPages * MLA);
            CUdeviceptr rawHost = baseline.pinnedBytes(hostBytes);
            report(timer, baseline::timeMillis, "d2h_pages_dma", hostBytes, () -> baseline.copyRuns(rawPool, devicePages, rawHost, hostIds, MLA));
            report(timer, baseline::timeMillis, "h2d_pages_dma", hostBytes, () -> baseline.copyRuns(rawHost, hostIds, rawPool, devicePages, MLA));
            CUdeviceptr deviceFlat = baseline.deviceBytes(hostBytes);
            report(timer, baseline::timeMillis, "memcpy_d2h_pinned_same_bytes", hostBytes, () -> baseline.copy(rawHost, deviceFlat, hostBytes));
            report(timer, baseline::timeMillis, "memcpy_h2d_pinned_same_bytes", hostBytes, () -> baseline.copy(deviceFlat, rawHost, hostBytes));
        }
    }

    /**
     * Times {@code copy} as a whole call (checks, page-list upload, launch, synchronisation) and,
     * for kernel copies, the kernel alone ({@code name + "_kernel"}); {@code timing} times a call with events
     * on the stream it runs on (the memory's for its calls, the baseline's for raw copies).
     */
    private static void report(CudaBench timer, ToDoubleFunction<Runnable> timing, String name, long bytesMoved, Runnable copy) {
        for (int i = 0; i < WARMUP; i++) {
            copy.run();
        }
        List<Float> calls = new ArrayList<>();
        List<Float> kernels = new ArrayList<>();
        for (int i = 0; i < ITERATIONS; i++) {
            float before = timer.clock().lastMillis();
            calls.add((float) timing.applyAsDouble(copy));
            float kernel = timer.clock().lastMillis();
            if (!Float.isNaN(kernel) && Float.floatToIntBits(kernel) != Float.floatToIntBits(before)) {
                kernels.add(kernel);
            }
        }
        print(name, bytesMoved, calls);
        if (kernels.size() == ITERATIONS) {
            print(name + "_kernel", bytesMoved, kernels);
        }
    }

    private static void print(String name, long bytesMoved, List<Float> times) {
        times.sort(Float::compare);
        float median = times.get(times.size() / 2);
        System.out.println(String.format(Locale.ROOT,
                "{\"name\":\"%s\",\"bytes\":%d,\"median_ms\":%.4f,\"min_ms\":%.4f,\"max_ms\":%.4f,\"gbps\":%.1f}",
                name, bytesMoved, median, times.getFirst(), times.getLast(), bytesMoved / (median * 1e6)));
    }

    /** {@code n} distinct pages of {@code [0, of)}, in random order. */
    private static long[] sample(long seed, int n, int of) {
        long[] all = new long[of];
        Arrays.setAll(all, i -> i);
        SplittableRandom r = new SplittableRandom(seed);
        for (int i = of - 1; i > 0; i--) {
            int j = r.nextInt(i + 1);
            long t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        return Arrays.copyOf(all, n);
    }
}
