package org.kvflow.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.kvflow.core.DebugMode;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongArray;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.gather.GatherKernels;

/**
 * Page gather through the kernel API on an OpenCL device, page size 64 with the fp8 MLA layout
 * (41,984 B pages): {@code chunks} pools of just under 2 GiB (Aparapi's per-array limit), each
 * gathered through a random permutation into a view of the same size; one iteration gathers every
 * chunk. Time is the wall time of the blocking executes (pool and page lists stay on the device,
 * the view is not copied back while timing); median of {@code ITERATIONS}. The view is then
 * brought back and checked on 64 pages per chunk. Prints JSON lines; run through
 * {@code bench/device/kernels.sh}, which adds torch's {@code index_select} of the same pages.
 */
public final class KernelGatherBench {
    private static final int PAGE_WORDS = 41_984 / 8;
    private static final int WARMUP = 3;
    private static final int ITERATIONS = 30;

    private KernelGatherBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("KernelGatherBench");
        String selector = args.length > 0 ? args[0] : "opencl";
        int chunks = args.length > 1 ? Integer.parseInt(args[1]) : 2;
        int pagesPerChunk = args.length > 2 ? Integer.parseInt(args[2]) : (Integer.MAX_VALUE - 16) / (PAGE_WORDS * 8);
        Device device = Devices.select(selector);
        System.out.println("{\"device\":\"" + device + "\",\"chunks\":" + chunks + ",\"pages_per_chunk\":" + pagesPerChunk + "}");
        List<ExecutionPlan> plans = new ArrayList<>();
        List<long[]> pools = new ArrayList<>();
        List<int[]> perms = new ArrayList<>();
        List<LongArray> views = new ArrayList<>();
        SplittableRandom rnd = new SplittableRandom(42);
        for (int c = 0; c < chunks; c++) {
            long[] pool = new long[pagesPerChunk * PAGE_WORDS];
            Arrays.parallelSetAll(pool, i -> i * 0x9E3779B97F4A7C15L);
            int[] perm = permutation(rnd, pagesPerChunk);
            LongArray poolArray = LongArray.fromArray(pool);
            IntArray ids = IntArray.fromArray(perm);
            LongArray view = new LongArray(pool.length);
            TaskGraph graph = new TaskGraph("gather" + c)
                    .transferToDevice(DataTransferMode.FIRST_EXECUTION, poolArray, ids)
                    .task("pages", GatherKernels::gatherPages, poolArray, ids, PAGE_WORDS, view)
                    .transferToHost(DataTransferMode.UNDER_DEMAND, view);
            plans.add(new ExecutionPlan(graph.snapshot()).withDevice(device));
            pools.add(pool);
            perms.add(perm);
            views.add(view);
        }
        long first = System.nanoTime();
        plans.forEach(ExecutionPlan::execute);
        System.out.printf(Locale.ROOT, "{\"name\":\"first_execute\",\"ms\":%.1f}%n", (System.nanoTime() - first) / 1e6);
        double[] ms = new double[ITERATIONS];
        for (int i = 0; i < WARMUP + ITERATIONS; i++) {
            long t0 = System.nanoTime();
            plans.forEach(ExecutionPlan::execute);
            if (i >= WARMUP) {
                ms[i - WARMUP] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Arrays.sort(ms);
        double median = ms[ms.length / 2];
        long viewBytes = (long) chunks * pagesPerChunk * PAGE_WORDS * 8;
        System.out.printf(Locale.ROOT, "{\"name\":\"aparapi_gather_mla\",\"kv_bytes\":%d,\"bytes\":%d,\"median_ms\":%.4f,\"min_ms\":%.4f,"
                + "\"gbps\":%.1f,\"of_hbm_peak\":%.3f}%n", viewBytes, 2 * viewBytes, median, ms[0], 2 * viewBytes / (median * 1e6),
                2 * viewBytes / (median * 1e6) / 4800);
        for (int c = 0; c < chunks; c++) {
            plans.get(c).execute().transferToHost(views.get(c));
            check(c, pools.get(c), perms.get(c), views.get(c).toHeapArray(), rnd);
        }
        System.out.println("{\"name\":\"check\",\"pages_checked\":" + 64 * chunks + ",\"ok\":true}");
        plans.forEach(ExecutionPlan::close);
    }

    private static int[] permutation(SplittableRandom rnd, int n) {
        int[] p = new int[n];
        Arrays.setAll(p, i -> i);
        for (int i = n - 1; i > 0; i--) {
            int j = rnd.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        return p;
    }

    private static void check(int chunk, long[] pool, int[] perm, long[] view, SplittableRandom rnd) {
        for (int s = 0; s < 64; s++) {
            int k = s == 0 ? 0 : s == 1 ? perm.length - 1 : rnd.nextInt(perm.length);
            if (!Arrays.equals(view, k * PAGE_WORDS, (k + 1) * PAGE_WORDS, pool, perm[k] * PAGE_WORDS, (perm[k] + 1) * PAGE_WORDS)) {
                throw new IllegalStateException("chunk " + chunk + ": view page " + k + " differs from pool page " + perm[k]);
            }
        }
    }
}
