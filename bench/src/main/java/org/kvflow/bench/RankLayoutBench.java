package org.kvflow.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.ToDoubleFunction;
import java.util.SplittableRandom;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvDtype;
import org.kvflow.core.model.KvLayout;
import org.kvflow.core.model.ModelShape;
import org.kvflow.core.ownership.OwnershipMap;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;
import jcuda.driver.CUdeviceptr;
import org.kvflow.cuda.CudaPageMemory;
import org.kvflow.pages.PageBuffer;

/**
 * CP ranks as disjoint pools of one GPU (the single-device case of the multi-GPU layout):
 * DeepSeek V3.2 fp8 KV (61 layers of 41,984 B MLA + 8,448 B indexer pages at page size 64,
 * stored page-major), a request of {@code tokens} tokens whose pages are owned by page id
 * ({@code p mod cp}). Times the full-view materialization from the owners (one gather per owner
 * rank, as shared KV does) against a gather of the same pages from one pool (what a replicated
 * rank would copy) and one contiguous device copy of the same bytes, all in one run; checks 32
 * view pages; then prints the contract §3.4 capacity of shared vs replicated for a per-GPU budget.
 */
public final class RankLayoutBench {
    private static final ModelShape MODEL = ModelShape.DEEPSEEK_V32;
    private static final int PS = 64;
    private static final int WARMUP = 2;
    private static final int ITERATIONS = 10;

    private RankLayoutBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("RankLayoutBench");
        int cp = args.length > 0 ? Integer.parseInt(args[0]) : 8;
        int tokens = args.length > 1 ? Integer.parseInt(args[1]) : 131_072;
        long budget = args.length > 2 ? Long.parseLong(args[2]) : 100L << 30;
        KvLayout layout = new KvLayout(MODEL, KvDtype.FP8_E4M3);
        int mlaPage = Math.toIntExact(MODEL.layers() * layout.mlaPageBytes(PS));
        int indexPage = Math.toIntExact(MODEL.layers() * layout.indexPageBytes(PS));
        int pages = (tokens + PS - 1) / PS;
        int perRank = pages / cp + 64;
        OwnershipMap ownership = new OwnershipMap(cp, PS);
        long[] ids = sample(new SplittableRandom(7), pages, (long) cp * perRank);
        try (CudaBench gpu = CudaBench.open(0)) {
            CudaPageMemory cuda = gpu.memory();
            System.out.println("{\"device\":\"" + cuda.deviceName() + "\",\"cp\":" + cp + ",\"tokens\":" + tokens + ",\"pages\":" + pages
                    + ",\"page_bytes\":" + (mlaPage + indexPage) + "}");
            List<PageBuffer> mla = new ArrayList<>();
            List<PageBuffer> index = new ArrayList<>();
            for (int r = 0; r < cp; r++) {
                mla.add(cuda.allocate("rank " + r + " mla", perRank, mlaPage));
                index.add(cuda.allocate("rank " + r + " index", perRank, indexPage));
            }
            PageBuffer mlaView = cuda.allocate("mla view", pages, mlaPage);
            PageBuffer indexView = cuda.allocate("index view", pages, indexPage);
            long[][] src = new long[cp][];
            long[][] dst = new long[cp][];
            split(ownership, ids, src, dst);
            byte[][] marks = mark(cuda, ownership, ids, mla, mlaPage);

            long viewBytes = (long) pages * (mlaPage + indexPage);
            report(gpu, "shared_materialize_from_owners", 2 * viewBytes, () -> {
                for (int r = 0; r < cp; r++) {
                    cuda.copyComponents(List.of(mla.get(r), index.get(r)), src[r], List.of(mlaView, indexView), dst[r]);
                }
            });
            check(cuda, ids, marks, mlaView, mlaPage);
            PageBuffer mlaAll = cuda.allocate("one pool mla", pages, mlaPage);
            PageBuffer indexAll = cuda.allocate("one pool index", pages, indexPage);
            long[] all = new long[pages];
            Arrays.setAll(all, i -> i);
            long[] shuffled = Arrays.stream(sample(new SplittableRandom(9), pages, pages + 1L)).map(p -> p - 1).toArray();
            report(gpu, "gather_from_one_pool", 2 * viewBytes,
                    () -> cuda.copyComponents(List.of(mlaAll, indexAll), shuffled, List.of(mlaView, indexView), all));
            dtod(gpu, "memcpy_dtod_same_bytes", (long) pages * mlaPage, (long) pages * indexPage);
        }
        capacity(layout, cp, budget, tokens);
    }

    /** Per owner rank: its local pages of the request and their view positions. */
    static void split(OwnershipMap ownership, long[] ids, long[][] src, long[][] dst) {
        int cp = ownership.cpSize();
        int[] counts = new int[cp];
        for (long id : ids) {
            counts[ownership.owner(id)]++;
        }
        for (int r = 0; r < cp; r++) {
            src[r] = new long[counts[r]];
            dst[r] = new long[counts[r]];
            counts[r] = 0;
        }
        for (int k = 0; k < ids.length; k++) {
            int r = ownership.owner(ids[k]);
            src[r][counts[r]] = ownership.localPage(ids[k]);
            dst[r][counts[r]++] = k;
        }
    }

    /** Writes a distinct pattern into the owner pages of 32 view positions; returns it by position (others null). */
    private static byte[][] mark(CudaPageMemory cuda, OwnershipMap ownership, long[] ids, List<PageBuffer> mla, int mlaPage) {
        byte[][] marks = new byte[ids.length][];
        SplittableRandom rnd = new SplittableRandom(11);
        for (int s = 0; s < 32; s++) {
            int k = s == 0 ? 0 : s == 1 ? ids.length - 1 : rnd.nextInt(ids.length);
            byte[] page = new byte[mlaPage];
            rnd.nextBytes(page);
            marks[k] = page;
            cuda.writePages(mla.get(ownership.owner(ids[k])), ownership.localPage(ids[k]), page, 0, 1);
        }
        return marks;
    }

    private static void check(CudaPageMemory cuda, long[] ids, byte[][] marks, PageBuffer mlaView, int mlaPage) {
        byte[] got = new byte[mlaPage];
        int checked = 0;
        for (int k = 0; k < ids.length; k++) {
            if (marks[k] != null) {
                cuda.readPages(mlaView, k, 1, got, 0);
                if (!Arrays.equals(got, marks[k])) {
                    throw new IllegalStateException("view page " + k + " (page id " + ids[k] + ") differs from its owner's page");
                }
                checked++;
            }
        }
        System.out.println("{\"name\":\"check\",\"view_pages_checked\":" + checked + ",\"ok\":true}");
    }

    /**
     * The largest prompt one CP group holds with {@code budget} bytes per GPU (contract §3.4), shared
     * vs replicated, and shared with the full view's scratch (all layers of the request at once,
     * as kvflow materializes it, or one layer at a time) charged to the same budget.
     */
    private static void capacity(KvLayout layout, int cp, long budget, int tokens) {
        PoolCapacity pool = PoolCapacity.fromBudget(budget, layout, PS);
        long shared = pool.usableLogicalTokens(PoolLayout.SHARED, cp);
        long replicated = pool.usableLogicalTokens(PoolLayout.REPLICATED, cp);
        long perToken = layout.bytesPerTokenAllLayers();
        System.out.printf(Locale.ROOT, "{\"name\":\"capacity\",\"budget_bytes\":%d,\"bytes_per_token\":%d,\"shared_tokens\":%d,"
                + "\"replicated_tokens\":%d,\"ratio\":%.5f,\"shared_with_all_layer_scratch\":%d,\"shared_with_one_layer_scratch\":%d}%n",
                budget, perToken, shared, replicated, (double) shared / replicated,
                withScratch(budget, perToken, perToken, cp), withScratch(budget, perToken, perToken / layout.shape().layers(), cp));
    }

    /** Largest T with {@code T ≤ (cp·N − 1)·ps}, {@code N = (budget − T·scratchPerToken) div (perToken·ps)}. */
    private static long withScratch(long budget, long perToken, long scratchPerToken, int cp) {
        long lo = 0;
        long hi = budget / scratchPerToken;
        while (lo < hi) {
            long t = (lo + hi + 1) / 2;
            long pagesPerRank = (budget - t * scratchPerToken) / (perToken * PS);
            if (t <= (cp * pagesPerRank - 1) * PS) {
                lo = t;
            } else {
                hi = t - 1;
            }
        }
        return lo;
    }

    static float report(CudaBench gpu, String name, long bytesMoved, Runnable copy) {
        return report(gpu, name, bytesMoved, WARMUP, copy);
    }

    /**
     * {@link #report} after {@code warmup} untimed calls; returns the median in ms (enough for the JIT
     * to compile a call's host code: a long-running pipeline's state). Timed with events on the
     * memory's stream.
     */
    static float report(CudaBench gpu, String name, long bytesMoved, int warmup, Runnable copy) {
        return median(gpu::memoryMillis, name, bytesMoved, warmup, copy);
    }

    private static float median(ToDoubleFunction<Runnable> timer, String name, long bytesMoved, int warmup, Runnable copy) {
        for (int i = 0; i < warmup; i++) {
            copy.run();
        }
        float[] ms = new float[ITERATIONS];
        for (int i = 0; i < ITERATIONS; i++) {
            ms[i] = (float) timer.applyAsDouble(copy);
        }
        Arrays.sort(ms);
        float median = ms[ITERATIONS / 2];
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"bytes\":%d,\"median_ms\":%.3f,\"min_ms\":%.3f,\"gbps\":%.1f}%n",
                name, bytesMoved, median, ms[0], bytesMoved / (median * 1e6));
        return median;
    }

    /** {@link #report} of plain device-to-device copies of the same bytes, one per component, on raw buffers (timed on their stream): the baseline. */
    static float dtod(CudaBench gpu, String name, long... componentBytes) {
        CudaBaseline b = gpu.baseline();
        CUdeviceptr[] from = new CUdeviceptr[componentBytes.length];
        CUdeviceptr[] to = new CUdeviceptr[componentBytes.length];
        long total = 0;
        for (int c = 0; c < componentBytes.length; c++) {
            from[c] = b.deviceBytes(componentBytes[c]);
            to[c] = b.deviceBytes(componentBytes[c]);
            total += componentBytes[c];
        }
        return median(b::timeMillis, name, 2 * total, WARMUP, () -> {
            for (int c = 0; c < componentBytes.length; c++) {
                b.copy(to[c], from[c], componentBytes[c]);
            }
        });
    }

    /**
     * The copy kernel of {@code copy} alone (CUDA events around its launch), and the host's wall
     * time of the whole call, medians of 21 calls: what separates the call from its kernel is the
     * host work before the launch and the wait after it.
     */
    static void reportKernel(CudaBench gpu, String name, Runnable copy) {
        gpu.clock().timing(true);
        float[] kernel = new float[21];
        double[] wall = new double[kernel.length];
        try {
            for (int i = 0; i < kernel.length; i++) {
                long t0 = System.nanoTime();
                copy.run();
                wall[i] = (System.nanoTime() - t0) / 1e6;
                kernel[i] = gpu.clock().lastMillis();
            }
        } finally {
            gpu.clock().timing(false);
        }
        Arrays.sort(kernel);
        Arrays.sort(wall);
        System.out.printf(Locale.ROOT, "{\"name\":\"%s\",\"kernel_ms\":%.3f,\"min_ms\":%.3f,\"call_wall_ms\":%.3f,\"launches\":%d}%n",
                name, kernel[kernel.length / 2], kernel[0], wall[wall.length / 2], kernel.length);
    }

    /** DeepSeek V3.2's fp8 KV layout with {@code layers} layers (61 for the real model). */
    static KvLayout v32Fp8(int layers) {
        ModelShape v32 = ModelShape.DEEPSEEK_V32;
        return new KvLayout(new ModelShape(v32.name(), v32.kind(), layers, v32.latentDim(), v32.ropeDim(), v32.indexDim()), KvDtype.FP8_E4M3);
    }

    /** {@code n} distinct values of {@code [1, of)} (page 0 is the padding page), in random order. */
    static long[] sample(SplittableRandom rnd, int n, long of) {
        long[] all = new long[Math.toIntExact(of)];
        Arrays.setAll(all, i -> i);
        for (int i = all.length - 1; i > 1; i--) {
            int j = 1 + rnd.nextInt(i);
            long t = all[i];
            all[i] = all[j];
            all[j] = t;
        }
        return Arrays.copyOfRange(all, 1, n + 1);
    }
}
