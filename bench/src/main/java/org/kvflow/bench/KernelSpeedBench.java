package org.kvflow.bench;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.Locale;
import java.util.SplittableRandom;
import org.kvflow.core.DebugMode;
import org.kvflow.core.model.KvLayout;
import org.kvflow.kernels.api.ByteArray;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.nsa.AttentionChain;
import org.kvflow.kernels.nsa.IndexerKernels;
import org.kvflow.kernels.quant.TileQuant;

/**
 * The kvflow side of the kernel-speed figures, on one device (cuda by default), each case a JSON
 * line; {@code bench/device/kernel-speed.sh} runs torch on the same shapes in the same job.
 * <ul>
 *   <li>{@code scores NQ NK}: the indexer scores ({@link IndexerKernels#scoreFp8}) of {@code NQ}
 *       Gaussian queries against {@code NK} fp8 keys of dim 128, on the device; the execute's wall
 *       time and the kernel's device time, medians of 20 after the host's warm-up ({@link HostWarmup})
 *       and 3 more rounds (and the device time as timed before that warm-up, after 24 rounds), the achieved TFLOP/s,
 *       and the largest error of sampled scores against the Java reference, relative to
 *       {@code Σ|q·k|} (the documented tolerance bounds it; the run fails above it).</li>
 *   <li>{@code step QUERIES KEYS BATCH}: the whole attention step of {@code QUERIES} queries over
 *       {@code KEYS} keys ({@link AttentionChain}: scores, top-2,048, rows, attention; index dim 128,
 *       576-wide rows, latent 512), {@code BATCH} queries a run; wall time of the step, median of
 *       three after one first step and the host's warm-up (runs of the chain, {@link HostWarmup}),
 *       with that step's device time by task summed over its runs.</li>
 * </ul>
 */
public final class KernelSpeedBench {
    private static final int DIM = 128;
    private static final int WIDTH = 576;
    private static final int LATENT = 512;
    private static final int TOP_K = 2048;
    /** Largest score error the tiled kernels may make, relative to {@code Σ|q·k|} (docs/kernels.md). */
    static final double SCORE_TOLERANCE = 0x1p-16;

    private KernelSpeedBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("KernelSpeedBench");
        Device device = Devices.select(System.getProperty("kvflow.bench.device", "cuda"));
        switch (args[0]) {
            case "scores" -> scores(device, Integer.parseInt(args[1]), Integer.parseInt(args[2]));
            case "step" -> step(device, Integer.parseInt(args[1]), Integer.parseInt(args[2]), Integer.parseInt(args[3]));
            default -> throw new IllegalArgumentException("unknown case '" + args[0] + "': scores NQ NK | step QUERIES KEYS BATCH");
        }
    }

    /** {@code n} rows of {@code DIM} fp8 codes with one scale a row, from Gaussian values. */
    private record Keys(byte[] codes, float[] scales) {
        static Keys gaussian(SplittableRandom rnd, int n) {
            byte[] codes = new byte[Math.multiplyExact(n, DIM)];
            float[] scales = new float[n * KvLayout.tiles(DIM)];
            float[] row = new float[DIM];
            for (int j = 0; j < n; j++) {
                for (int d = 0; d < DIM; d++) {
                    row[d] = (float) rnd.nextGaussian();
                }
                scales[j] = TileQuant.scale(row, 0, DIM);
                for (int d = 0; d < DIM; d++) {
                    codes[j * DIM + d] = TileQuant.quantize(row[d], scales[j]);
                }
            }
            return new Keys(codes, scales);
        }
    }

    private static float[] gaussian(SplittableRandom rnd, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) rnd.nextGaussian();
        }
        return v;
    }

    private static void scores(Device device, int nq, int nk) {
        SplittableRandom rnd = new SplittableRandom(11);
        Keys keys = Keys.gaussian(rnd, nk);
        float[] q = gaussian(rnd, nq * DIM);
        FloatArray queries = FloatArray.fromArray(q);
        ByteArray codes = ByteArray.fromArray(keys.codes());
        FloatArray scales = FloatArray.fromArray(keys.scales());
        IntArray shape = IntArray.fromArray(new int[] {DIM, nq, nk});
        FloatArray scores = new FloatArray(Math.multiplyExact(nq, nk));
        TaskGraph graph = new TaskGraph("indexer").transferToDevice(DataTransferMode.FIRST_EXECUTION, queries, codes, scales, shape)
                .task("scores", IndexerKernels::scoreFp8, queries, codes, scales, shape, scores)
                .transferToHost(DataTransferMode.UNDER_DEMAND, scores);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(device)) {
            // first as the records before the host's warm-up timed it: after 24 rounds, the host code mostly not yet compiled
            plan.execute();
            double beforeWarmup = ExecuteTiming.kernelMedianMs(plan, 23, 20);
            ExecuteTiming t = ExecuteTiming.of(List.of(plan), 3, 20);
            double kernel = ExecuteTiming.kernelMedianMs(plan, 0, 20);
            plan.execute().transferToHost(scores);
            double err = worstError(q, keys, scores.toHeapArray(), nq, nk, rnd);
            double flop = 2.0 * nq * nk * DIM;
            System.out.printf(Locale.ROOT, "{\"name\":\"kvflow_scores\",\"device\":\"%s\",\"nq\":%d,\"nk\":%d,\"dim\":%d,\"median_ms\":%.4f,"
                    + "\"kernel_median_ms\":%.4f,\"tflops\":%.2f,\"max_rel_err\":%.3g,\"host_warmup_rounds\":%d,"
                    + "\"kernel_median_before_warmup_ms\":%.4f}%n", device, nq, nk, DIM, t.medianMs(), kernel, flop / (kernel * 1e9), err,
                    t.hostWarmupRounds(), beforeWarmup);
            if (!(err <= SCORE_TOLERANCE)) {
                throw new IllegalStateException("scores differ from the Java reference by " + err + " of Σ|q·k|, above " + SCORE_TOLERANCE);
            }
        }
    }

    /** The largest |device − reference| / Σ|q·k| over 4,096 sampled scores. */
    private static double worstError(float[] q, Keys keys, float[] scores, int nq, int nk, SplittableRandom rnd) {
        double worst = 0;
        for (int s = 0; s < 4096; s++) {
            int i = rnd.nextInt(nq);
            int j = rnd.nextInt(nk);
            float expected = 0.0f;
            double magnitude = 0;
            for (int d = 0; d < DIM; d++) {
                float k = TileQuant.dequantize(keys.codes()[j * DIM + d], keys.scales()[j]);
                expected = expected + q[i * DIM + d] * k;
                magnitude += Math.abs((double) q[i * DIM + d] * k);
            }
            worst = Math.max(worst, Math.abs(scores[i * nk + j] - expected) / magnitude);
        }
        return worst;
    }

    private static void step(Device device, int queries, int keyCount, int batch) {
        if (queries % batch != 0) {
            throw new IllegalArgumentException("batch " + batch + " does not split " + queries + " queries");
        }
        SplittableRandom rnd = new SplittableRandom(13);
        Keys keys = Keys.gaussian(rnd, keyCount);
        float[] rows = gaussian(rnd, Math.multiplyExact(keyCount, WIDTH));
        float[] indexQueries = gaussian(rnd, batch * DIM);
        float[] q = gaussian(rnd, batch * WIDTH);
        try (AttentionChain chain = new AttentionChain(new AttentionChain.Shape(DIM, WIDTH, LATENT, batch, keyCount, TOP_K), keys.codes(),
                keys.scales(), rows, device)) {
            double[] ms = new double[4];
            List<Map<String, Long>> taskNanos = new ArrayList<>();
            int warmed = 0;
            for (int r = 0; r < ms.length; r++) {
                if (r == 1) { // after the first step (kernel builds, first uploads), before the timed ones
                    warmed = HostWarmup.run(() -> chain.run(indexQueries, q));
                }
                Map<String, Long> tasks = new TreeMap<>();
                long t0 = System.nanoTime();
                for (int i = 0; i < queries; i += batch) {
                    chain.run(indexQueries, q).profile().taskNanos().forEach((task, ns) -> tasks.merge(task, ns, Long::sum));
                }
                ms[r] = (System.nanoTime() - t0) / 1e6;
                taskNanos.add(tasks);
            }
            // the median of the three timed steps, with that step's kernel time by task (the rest of its wall time is host work)
            Integer[] order = {1, 2, 3};
            Arrays.sort(order, Comparator.comparingDouble(r -> ms[r]));
            int median = order[1];
            StringBuilder tasks = new StringBuilder();
            long kernels = 0;
            for (Map.Entry<String, Long> e : taskNanos.get(median).entrySet()) {
                tasks.append(tasks.isEmpty() ? "" : ",").append(String.format(Locale.ROOT, "\"%s\":%.2f", e.getKey(), e.getValue() / 1e6));
                kernels += e.getValue();
            }
            System.out.printf(Locale.ROOT, "{\"name\":\"kvflow_step\",\"device\":\"%s\",\"queries\":%d,\"keys\":%d,\"batch\":%d,\"ms\":%.2f,"
                    + "\"first_ms\":%.1f,\"kernels_ms\":%.2f,\"tasks_ms\":{%s},\"host_warmup_runs\":%d}%n", device, queries, keyCount, batch,
                    ms[median], ms[0], kernels / 1e6, tasks, warmed);
        }
    }
}
