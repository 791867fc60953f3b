package org.kvflow.bench;

import java.util.Arrays;
import java.util.List;
import org.kvflow.kernels.api.ExecutionPlan;

/**
 * Wall time of blocking {@link ExecutionPlan#execute()} rounds, for the device benchmarks: the
 * first round (kernel build and first uploads) apart, then {@link HostWarmup the host's warm-up}
 * (rounds until the host code of a round is compiled, as in a long-running process), then
 * {@code warmup} untimed rounds and the median and minimum of {@code iterations} timed ones; a
 * round executes every plan once, in order.
 */
record ExecuteTiming(double medianMs, double minMs, double firstMs, int hostWarmupRounds) {
    static ExecuteTiming of(List<ExecutionPlan> plans, int warmup, int iterations) {
        long first = System.nanoTime();
        plans.forEach(ExecutionPlan::execute);
        double firstMs = (System.nanoTime() - first) / 1e6;
        int warmed = HostWarmup.run(() -> plans.forEach(ExecutionPlan::execute));
        double[] ms = new double[iterations];
        for (int i = 0; i < warmup + iterations; i++) {
            long t0 = System.nanoTime();
            plans.forEach(ExecutionPlan::execute);
            if (i >= warmup) {
                ms[i - warmup] = (System.nanoTime() - t0) / 1e6;
            }
        }
        Arrays.sort(ms);
        return new ExecuteTiming(ms[ms.length / 2], ms[0], firstMs, warmed);
    }

    /**
     * After {@code skip} untimed executions, the median of {@code iterations} executions' device
     * time as {@code plan}'s profile reports it (device events on cuda), in ms.
     */
    static double kernelMedianMs(ExecutionPlan plan, int skip, int iterations) {
        for (int i = 0; i < skip; i++) {
            plan.execute();
        }
        double[] kernel = new double[iterations];
        for (int i = 0; i < iterations; i++) {
            kernel[i] = plan.execute().profile().kernelNanos() / 1e6;
        }
        Arrays.sort(kernel);
        return kernel[iterations / 2];
    }
}
