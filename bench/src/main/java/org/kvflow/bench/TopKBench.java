package org.kvflow.bench;

import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.kvflow.core.DebugMode;
import org.kvflow.kernels.api.DataTransferMode;
import org.kvflow.kernels.api.Device;
import org.kvflow.kernels.api.Devices;
import org.kvflow.kernels.api.ExecutionPlan;
import org.kvflow.kernels.api.FloatArray;
import org.kvflow.kernels.api.IntArray;
import org.kvflow.kernels.api.TaskGraph;
import org.kvflow.kernels.nsa.IndexerKernels;

/**
 * NSA indexer top-k through the kernel API ({@link IndexerKernels#topKRows}): {@code rows} rows
 * of {@code nk} seeded Gaussian scores, every row sees all its keys, top {@code k} (2,048 as in
 * DeepSeek V3.2). Scores stay on the device; time is the wall time of the blocking execute,
 * median of {@code ITERATIONS} after the host's warm-up ({@link HostWarmup}) and {@code WARMUP} more, and the kernel time the execution profile
 * reports (device events on cuda, the launch's wall time on OpenCL), median of as many more. Eight rows are then checked against the
 * Java reference. Prints JSON lines; {@code bench/device/kernels.sh} runs {@code torch.topk} on
 * the same shape in the same job.
 */
public final class TopKBench {
    private static final int WARMUP = 3;
    private static final int ITERATIONS = 20;

    private TopKBench() {}

    public static void main(String[] args) {
        DebugMode.refuseBenchmark("TopKBench");
        String selector = args.length > 0 ? args[0] : "opencl";
        int rows = args.length > 1 ? Integer.parseInt(args[1]) : 1024;
        int nk = args.length > 2 ? Integer.parseInt(args[2]) : 65_536;
        int k = args.length > 3 ? Integer.parseInt(args[3]) : 2048;
        Device device = Devices.select(selector);
        float[] values = new float[Math.multiplyExact(rows, nk)];
        SplittableRandom rnd = new SplittableRandom(7);
        for (int i = 0; i < values.length; i++) {
            values[i] = (float) rnd.nextGaussian();
        }
        int[] all = new int[rows];
        Arrays.fill(all, nk);
        FloatArray scores = FloatArray.fromArray(values);
        IntArray counts = IntArray.fromArray(all);
        IntArray shape = IntArray.fromArray(new int[] {rows, nk, k});
        IntArray selected = new IntArray(rows * k);
        TaskGraph graph = new TaskGraph("indexer")
                .transferToDevice(DataTransferMode.FIRST_EXECUTION, scores, counts, shape)
                .task("topK", IndexerKernels::topKRows, scores, counts, shape, selected)
                .transferToHost(DataTransferMode.UNDER_DEMAND, selected);
        try (ExecutionPlan plan = new ExecutionPlan(graph.snapshot()).withDevice(device)) {
            ExecuteTiming t = ExecuteTiming.of(List.of(plan), WARMUP, ITERATIONS);
            double kernel = ExecuteTiming.kernelMedianMs(plan, 0, ITERATIONS);
            System.out.printf(Locale.ROOT, "{\"name\":\"kvflow_topk\",\"device\":\"%s\",\"rows\":%d,\"nk\":%d,\"k\":%d,\"median_ms\":%.4f,"
                    + "\"min_ms\":%.4f,\"kernel_median_ms\":%.4f,\"first_execute_ms\":%.1f,\"host_warmup_rounds\":%d}%n", device, rows, nk, k,
                    t.medianMs(), t.minMs(), kernel, t.firstMs(), t.hostWarmupRounds());
            plan.execute().transferToHost(selected);
        }
        for (int s = 0; s < Math.min(8, rows); s++) {
            int q = s == 0 ? 0 : rnd.nextInt(rows);
            int[] expected = IndexerKernels.topK(Arrays.copyOfRange(values, q * nk, (q + 1) * nk), nk, k);
            if (!Arrays.equals(expected, 0, expected.length, selected.toHeapArray(), q * k, q * k + expected.length)) {
                throw new IllegalStateException("row " + q + ": device top-k differs from the Java reference");
            }
        }
        System.out.println("{\"name\":\"topk_check\",\"rows_checked\":" + Math.min(8, rows) + ",\"ok\":true}");
    }
}
