package org.kvflow.bench;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvLayout;
import jcuda.driver.CUdeviceptr;
import org.kvflow.cuda.CudaDevice;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.ExecutionProfile;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.ImmutableTaskGraph;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.LongPages;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.gather.GatherKernels;
import org.kvflow.kernels.nsa.AttentionChain;
import org.kvflow.kernels.nsa.AttentionKernels;
import org.kvflow.kernels.nsa.IndexerKernels;
import org.kvflow.kernels.nsa.NsaDims;
import org.kvflow.kernels.nsa.SyntheticKeys;
import org.kvflow.kernels.nsa.SyntheticNsaLayer;
import org.kvflow.kernels.quant.Fp8E4m3;
import org.kvflow.kernels.quant.QuantKernels;

/**
 * The cuda task-graph device on the GPU machine, three measurements in one process (JSON lines):
 * <ol>
 *   <li>{@code first}: for every kernel, building its plan (translation, module load, buffers) and
 *       its first execute, each the kernel's first use in this process (the CUDA context is made
 *       by a gather plan before);</li>
 *   <li>{@code gather}: the page gather of {@code chunks} pool chunks of 41,984-byte pages (the
 *       pool is one device allocation) through a permutation of all pages, in a task graph,
 *       against {@code cuMemcpyDtoD} of the same bytes on the same context; wall time of the
 *       blocking calls and device (event) time, medians;</li>
 *   <li>{@code chain}: {@link AttentionChain} (scores → top-k → rows → attention) at
 *       {@code queries × keys}, top 2,048, DeepSeek V3.2 dims, on cuda and on the OpenCL GPU, same
 *       inputs: median wall time, host bytes of a steady run, and the outputs compared.</li>
 * </ol>
 * Usage: {@code CudaTaskGraphBench [chunks [queries [keys]]]}.
 */
public final class CudaTaskGraphBench {
    private static final int PAGE_WORDS = 41_984 / 8;
    private static final int ITERATIONS = 20;

    private CudaTaskGraphBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("CudaTaskGraphBench");
        int chunks = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        int queries = args.length > 1 ? Integer.parseInt(args[1]) : 128;
        int keys = args.length > 2 ? Integer.parseInt(args[2]) : 65_536;
        Device cuda = Devices.select("cuda");
        firstExecutes(cuda);
        gather(cuda, chunks);
        chain(cuda, Devices.select("opencl"), queries, keys);
    }

    private static void firstExecutes(Device cuda) {
        time("context+gatherPages", () -> gatherGraph(LongPages.allocate(4, 8), IntArray.fromArray(new int[] {1, 2}), LongPages.allocate(2, 8)), cuda);
        time("scatterPages", () -> new TaskGraph("s").task("t", GatherKernels::scatterPages, LongPages.allocate(2, 8),
                IntArray.fromArray(new int[] {3, 0}), LongPages.allocate(4, 8)).snapshot(), cuda);
        time("scoreFp8", () -> new TaskGraph("s").task("t", IndexerKernels::scoreFp8, new FloatArray(256), new ByteArray(512),
                new FloatArray(4), IntArray.fromArray(new int[] {128, 2, 4}), new FloatArray(8)).snapshot(), cuda);
        time("topKRows", () -> new TaskGraph("s").task("t", IndexerKernels::topKRows, new FloatArray(64), IntArray.fromArray(new int[] {32, 32}),
                IntArray.fromArray(new int[] {2, 32, 4}), new IntArray(8)).snapshot(), cuda);
        time("attendSelected", () -> new TaskGraph("s").task("t", AttentionKernels::attendSelected, new FloatArray(32), new FloatArray(64),
                new IntArray(4), IntArray.fromArray(new int[] {16, 8, 2, 2}), new FloatArray(4), new FloatArray(16)).snapshot(), cuda);
        time("attendBatch", () -> new TaskGraph("s").task("t", AttentionKernels::attendBatch, new FloatArray(32), new FloatArray(64),
                IntArray.fromArray(new int[] {16, 8, 2, 2}), new FloatArray(4), new FloatArray(16)).snapshot(), cuda);
        time("quantizeTiles", () -> new TaskGraph("s").task("t", QuantKernels::quantizeTiles, new FloatArray(256), 128, 128, new FloatArray(2),
                new ByteArray(256)).snapshot(), cuda);
        time("dequantizeTiles", () -> new TaskGraph("s").task("t", QuantKernels::dequantizeTiles, new ByteArray(256), 128, 128,
                new FloatArray(2), new FloatArray(256)).snapshot(), cuda);
        long t0 = System.nanoTime();
        try (SyntheticKeys keys = new SyntheticKeys(SyntheticNsaLayer.ofModel(1, NsaDims.REAL, 1), cuda)) {
            keys.keys(new int[] {1, 2}, new long[] {0, 1});
        }
        first("SyntheticKernels.keys", (System.nanoTime() - t0) / 1e6);
    }

    private static void time(String kernel, Supplier<ImmutableTaskGraph> graph, Device device) {
        ImmutableTaskGraph g = graph.get();
        long t0 = System.nanoTime();
        try (ExecutionPlan plan = new ExecutionPlan(g).withDevice(device)) {
            plan.execute();
            first(kernel, (System.nanoTime() - t0) / 1e6);
        }
    }

    private static void first(String kernel, double ms) {
        System.out.printf(Locale.ROOT, "{\"name\":\"first_execute\",\"kernel\":\"%s\",\"ms\":%.1f}%n", kernel, ms);
    }

    private static ImmutableTaskGraph gatherGraph(LongPages pool, IntArray ids, LongPages view) {
        return new TaskGraph("fullView").transferToDevice(DataTransferMode.FIRST_EXECUTION, pool, ids)
                .task("gather", GatherKernels::gatherPages, pool, ids, view).transferToHost(DataTransferMode.UNDER_DEMAND, view).snapshot();
    }

    private static void gather(Device cuda, int chunks) {
        int perChunk = LongPages.maxPagesPerChunk(PAGE_WORDS);
        long pages = (long) chunks * perChunk;
        LongPages pool = LongPages.allocate(pages, PAGE_WORDS);
        for (int c = 0; c < chunks; c++) {
            long first = (long) c * perChunk * PAGE_WORDS;
            Arrays.parallelSetAll(pool.chunk(c).toHeapArray(), i -> (first + i) * 0x9E3779B97F4A7C15L);
        }
        int[] perm = KernelGatherBench.permutation(new SplittableRandom(42), Math.toIntExact(pages));
        LongPages view = LongPages.allocate(pages, PAGE_WORDS);
        long bytes = pages * PAGE_WORDS * Long.BYTES;
        double[] graphWall = new double[ITERATIONS];
        double[] graphKernel = new double[ITERATIONS];
        long hostBytes = 0;
        try (ExecutionPlan plan = new ExecutionPlan(gatherGraph(pool, IntArray.fromArray(perm), view)).withDevice(cuda)) {
            for (int i = -3; i < ITERATIONS; i++) {
                long t0 = System.nanoTime();
                ExecutionProfile p = plan.execute().profile();
                if (i >= 0) {
                    graphWall[i] = (System.nanoTime() - t0) / 1e6;
                    graphKernel[i] = p.kernelNanos() / 1e6;
                    hostBytes += p.hostBytes();
                }
            }
            plan.execute().transferToHost(view);
        }
        SplittableRandom rnd = new SplittableRandom(7);
        for (int s = 0; s < 256; s++) {
            int k = rnd.nextInt(perm.length);
            for (int i : new int[] {0, PAGE_WORDS / 2, PAGE_WORDS - 1}) {
                if (view.get(k, i) != pool.get(perm[k], i)) {
                    throw new IllegalStateException("view page " + k + " word " + i + " differs from pool page " + perm[k]);
                }
            }
        }
        double[] dtodWall = new double[ITERATIONS];
        double[] dtodEvent = new double[ITERATIONS];
        try (CudaBaseline copier = new CudaBaseline(CudaDevice.open(cuda.index()))) {
            long copyBytes = (long) pages * PAGE_WORDS * Long.BYTES;
            CUdeviceptr a = copier.deviceBytes(copyBytes);
            CUdeviceptr b = copier.deviceBytes(copyBytes);
            for (int i = -3; i < ITERATIONS; i++) {
                long t0 = System.nanoTime();
                copier.copy(b, a, copyBytes);
                if (i >= 0) {
                    dtodWall[i] = (System.nanoTime() - t0) / 1e6;
                    dtodEvent[i] = copier.timeMillis(() -> copier.copy(b, a, copyBytes));
                }
            }
        }
        double gw = median(graphWall);
        double gk = median(graphKernel);
        double dw = median(dtodWall);
        double de = median(dtodEvent);
        System.out.printf(Locale.ROOT, "{\"name\":\"gather_graph\",\"bytes\":%d,\"pages\":%d,\"graph_wall_ms\":%.4f,\"graph_kernel_ms\":%.4f,"
                + "\"dtod_wall_ms\":%.4f,\"dtod_event_ms\":%.4f,\"wall_vs_dtod\":%.4f,\"kernel_vs_dtod\":%.4f,\"gbps\":%.1f,"
                + "\"host_bytes_per_execute\":%d,\"checked_pages\":256}%n", bytes, pages, gw, gk, dw, de, dw / gw, de / gk,
                2.0 * bytes / (gw * 1e6), hostBytes / ITERATIONS);
    }

    private static void chain(Device cuda, Device openCl, int queries, int keys) {
        NsaDims dims = NsaDims.REAL;
        AttentionChain.Shape shape = new AttentionChain.Shape(dims.index(), dims.latent() + dims.rope(), dims.latent(), queries, keys, dims.topk());
        SplittableRandom rnd = new SplittableRandom(5);
        byte[] codes = new byte[keys * shape.indexDim()];
        for (int i = 0; i < codes.length; i++) {
            codes[i] = Fp8E4m3.encode((float) rnd.nextGaussian());
        }
        float[] scales = gaussian(rnd, keys * KvLayout.tiles(shape.indexDim()));
        float[] rows = gaussian(rnd, keys * shape.width());
        float[] indexQueries = gaussian(rnd, queries * shape.indexDim());
        float[] q = gaussian(rnd, queries * shape.width());
        Map<String, float[]> outs = new LinkedHashMap<>();
        Map<String, int[]> picks = new LinkedHashMap<>();
        for (Device d : List.of(cuda, openCl)) {
            int runs = d == cuda ? ITERATIONS : 5;
            double[] ms = new double[runs];
            ExecutionProfile last = null;
            try (AttentionChain chain = new AttentionChain(shape, codes, scales, rows, d)) {
                for (int i = -2; i < runs; i++) {
                    long t0 = System.nanoTime();
                    last = chain.run(indexQueries, q).profile();
                    if (i >= 0) {
                        ms[i] = (System.nanoTime() - t0) / 1e6;
                    }
                }
                outs.put(d.backend(), chain.out().clone());
                picks.put(d.backend(), chain.selected());
            }
            System.out.printf(Locale.ROOT, "{\"name\":\"chain\",\"device\":\"%s\",\"queries\":%d,\"keys\":%d,\"top_k\":2048,\"median_ms\":%.3f,"
                    + "\"bytes_to_device\":%d,\"bytes_to_host\":%d,\"task_ms\":%s}%n", d, queries, keys, median(ms), last.bytesToDevice(),
                    last.bytesToHost(), taskMs(last));
        }
        float[] a = outs.get("cuda");
        float[] b = outs.get("opencl");
        double worst = 0;
        for (int i = 0; i < a.length; i++) {
            worst = Math.max(worst, Math.abs(a[i] - b[i]));
        }
        System.out.printf(Locale.ROOT, "{\"name\":\"chain_check\",\"same_selection\":%b,\"max_abs_output_difference\":%.3g}%n",
                Arrays.equals(picks.get("cuda"), picks.get("opencl")), worst);
    }

    private static String taskMs(ExecutionProfile p) {
        StringBuilder s = new StringBuilder("{");
        p.taskNanos().forEach((k, v) -> s.append(s.length() > 1 ? "," : "").append('"').append(k).append("\":")
                .append(String.format(Locale.ROOT, "%.3f", v / 1e6)));
        return s.append('}').toString();
    }

    private static float[] gaussian(SplittableRandom rnd, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) rnd.nextGaussian();
        }
        return v;
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s[s.length / 2];
    }
}
