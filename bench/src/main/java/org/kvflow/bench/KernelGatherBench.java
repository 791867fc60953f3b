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
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.gather.GatherKernels;

/**
 * Page gather through the kernel API on an OpenCL device, page size 64 with the fp8 MLA layout
 * (41,984 B pages): a pool of {@code chunks} chunks of just under 2 GiB (Aparapi's per-array
 * limit) gathered through a random permutation of all its pages into a view of the same size,
 * two ways on the same arrays: one plan whose one launch spans every chunk, and one plan per chunk
 * (the shape the limit forced before pools could span chunks). Time is the wall time of the
 * blocking executes (pool and page list stay on the device, the view is not copied back while
 * timing); median of {@code ITERATIONS}. Each view is then brought back and checked on 64 pages
 * per chunk. Prints JSON lines; run through {@code bench/device/kernels.sh}, which adds torch's
 * {@code index_select} of the same bytes.
 */
public final class KernelGatherBench {
    private static final int PAGE_WORDS = 41_984 / 8;
    private static final int WARMUP = 3;
    private static final int ITERATIONS = 30;

    private KernelGatherBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("KernelGatherBench");
        String selector = args.length > 0 ? args[0] : "opencl";
        int chunks = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        int pagesPerChunk = args.length > 2 ? Integer.parseInt(args[2]) : LongPages.maxPagesPerChunk(PAGE_WORDS);
        Device device = Devices.select(selector);
        long pages = (long) chunks * pagesPerChunk;
        System.out.println("{\"device\":\"" + device + "\",\"chunks\":" + chunks + ",\"pages_per_chunk\":" + pagesPerChunk + "}");
        LongPages pool = LongPages.allocate(pages, PAGE_WORDS, pagesPerChunk);
        for (int c = 0; c < chunks; c++) {
            long first = (long) c * pagesPerChunk * PAGE_WORDS;
            Arrays.parallelSetAll(pool.chunk(c).toHeapArray(), i -> (first + i) * 0x9E3779B97F4A7C15L);
        }
        SplittableRandom rnd = new SplittableRandom(42);
        long kvBytes = pages * PAGE_WORDS * Long.BYTES;

        int[] all = permutation(rnd, Math.toIntExact(pages));
        LongPages view = LongPages.allocate(pages, PAGE_WORDS, pagesPerChunk);
        ExecutionPlan spanning = plan("spanning", pool, IntArray.fromArray(all), view, device);
        report("aparapi_gather_mla_one_launch", ExecuteTiming.of(List.of(spanning), WARMUP, ITERATIONS), kvBytes);
        spanning.execute().transferToHost(view);
        check("one launch", pool, all, view, rnd);

        List<ExecutionPlan> perChunk = new ArrayList<>();
        List<int[]> perms = new ArrayList<>();
        List<LongPages> chunkPools = new ArrayList<>();
        List<LongPages> chunkViews = new ArrayList<>();
        for (int c = 0; c < chunks; c++) {
            perms.add(permutation(rnd, pagesPerChunk));
            chunkPools.add(LongPages.of(pool.chunk(c), PAGE_WORDS));
            chunkViews.add(LongPages.of(view.chunk(c), PAGE_WORDS));
            perChunk.add(plan("chunk" + c, chunkPools.get(c), IntArray.fromArray(perms.get(c)), chunkViews.get(c), device));
        }
        report("aparapi_gather_mla_plan_per_chunk", ExecuteTiming.of(perChunk, WARMUP, ITERATIONS), kvBytes);
        for (int c = 0; c < chunks; c++) {
            perChunk.get(c).execute().transferToHost(chunkViews.get(c));
            check("plan per chunk " + c, chunkPools.get(c), perms.get(c), chunkViews.get(c), rnd);
        }
        System.out.println("{\"name\":\"check\",\"pages_checked\":" + 64 * 2 * chunks + ",\"ok\":true}");
        spanning.close();
        perChunk.forEach(ExecutionPlan::close);
    }

    private static ExecutionPlan plan(String name, LongPages pool, IntArray ids, LongPages view, Device device) {
        TaskGraph graph = new TaskGraph(name)
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, pool, ids)
                .task("pages", GatherKernels::gatherPages, pool, ids, view)
                .transferToHost(DataTransferMode.UNDER_DEMAND, view);
        return new ExecutionPlan(graph.snapshot()).withDevice(device);
    }

    private static void report(String name, ExecuteTiming t, long kvBytes) {
        double gbps = 2.0 * kvBytes / (t.medianMs() * 1e6);
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"kv_bytes\":%d,\"bytes\":%d,\"median_ms\":%.4f,\"min_ms\":%.4f,"
                + "\"gbps\":%.1f,\"of_hbm_peak\":%.3f,\"first_execute_ms\":%.1f}%n", name, kvBytes, 2 * kvBytes, t.medianMs(), t.minMs(),
                gbps, gbps / 4800, t.firstMs());
    }

    /** A random permutation of {@code 0 .. n-1} (Fisher–Yates). */
    static int[] permutation(SplittableRandom rnd, int n) {
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

    /** Compares 64 pages a chunk of the view brought back (the first, the last, random ones) with the pool. */
    private static void check(String what, LongPages pool, int[] perm, LongPages view, SplittableRandom rnd) {
        for (int s = 0; s < 64 * view.chunkCount(); s++) {
            int k = s == 0 ? 0 : s == 1 ? perm.length - 1 : rnd.nextInt(perm.length);
            for (int i = 0; i < PAGE_WORDS; i++) {
                if (view.get(k, i) != pool.get(perm[k], i)) {
                    throw new IllegalStateException(what + ": view page " + k + " word " + i + " differs from pool page " + perm[k]);
                }
            }
        }
    }
}
