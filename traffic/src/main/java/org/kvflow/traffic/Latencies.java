package org.kvflow.traffic;

import java.util.List;

/**
 * Percentiles of per-request latencies, in seconds (nearest rank).
 *
 * @param count how many requests
 * @param p50   the median
 * @param p90   the 90th percentile
 * @param p99   the 99th percentile
 * @param max   the largest
 */
public record Latencies(int count, double p50, double p90, double p99, double max) {
    /**
     * The percentiles of {@code seconds}.
     *
     * @param seconds one latency per request, any order
     * @return their percentiles, all 0 when there are none
     */
    public static Latencies of(List<Double> seconds) {
        if (seconds.isEmpty()) {
            return new Latencies(0, 0, 0, 0, 0);
        }
        double[] sorted = seconds.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        return new Latencies(sorted.length, rank(sorted, 0.50), rank(sorted, 0.90), rank(sorted, 0.99), sorted[sorted.length - 1]);
    }

    private static double rank(double[] sorted, double q) {
        return sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)];
    }
}
