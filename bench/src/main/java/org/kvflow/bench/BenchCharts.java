package org.kvflow.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.plot.CategoryPlot;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.ValueMarker;
import org.jfree.chart.renderer.category.BarRenderer;
import org.jfree.data.category.DefaultCategoryDataset;

/**
 * The charts of {@code docs/benchmarks.md}, drawn from the committed records in
 * {@code bench/results/} (nothing is measured here): the GPU prefill's time per stage for one layer
 * at 128K tokens, and each recorded ratio against its target. Usage:
 * {@code BenchCharts RESULTS_DIR OUT_DIR} (bench/charts.sh passes bench/results and docs/charts).
 */
public final class BenchCharts {
    private static final int WIDTH = 900;
    private static final int HEIGHT = 480;

    private BenchCharts() {}

    public static void main(String[] args) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Path results = Path.of(args.length > 0 ? args[0] : "bench/results");
        Path out = Path.of(args.length > 1 ? args[1] : "docs/charts");
        Files.createDirectories(out);
        ObjectMapper json = new ObjectMapper();
        JsonNode gpu = json.readTree(results.resolve("gpu-pipeline.json").toFile());
        JsonNode io = json.readTree(results.resolve("io-speed.json").toFile());
        JsonNode ranks = json.readTree(results.resolve("rank-processes.json").toFile());
        save(stages(gpu), out.resolve("gpu-prefill-stages.png"));
        save(ratios(gpu, io, ranks), out.resolve("ratios-vs-targets.png"));
        System.out.println("wrote " + out.resolve("gpu-prefill-stages.png") + " and " + out.resolve("ratios-vs-targets.png"));
    }

    /** Milliseconds per stage, summed over the 16 chunks of one layer (log scale: attention dwarfs the rest). */
    static JFreeChart stages(JsonNode gpu) {
        JsonNode t = gpu.get("details").get("totals_one_layer");
        Map<String, String> shown = new LinkedHashMap<>();
        shown.put("rows computed", "write_rows_ms");
        shown.put("rows stored (shared)", "write_shared_ms");
        shown.put("rows stored (replicated)", "write_replicated_ms");
        shown.put("materialize", "materialize_ms");
        shown.put("keys read from the view (in place)", "key_read_ms");
        shown.put("attention step", "attention_ms");
        shown.put("backup", "backup_ms");
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        shown.forEach((label, field) -> data.addValue(t.get(field).asDouble(), "ms", label));
        JFreeChart chart = ChartFactory.createBarChart("One layer, 131,072 tokens, CP8 on one H200: time per stage (" + gpu.get("date").asText() + ")",
                null, "milliseconds (log scale)", data, PlotOrientation.HORIZONTAL, false, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        org.jfree.chart.axis.LogAxis log = new org.jfree.chart.axis.LogAxis("milliseconds (log scale)");
        log.setSmallestValue(1);
        plot.setRangeAxis(log);
        ((BarRenderer) plot.getRenderer()).setSeriesPaint(0, new Color(0x1f77b4));
        return chart;
    }

    /** Each recorded ratio as a bar, with the target it is held to drawn at 1 (ratio ÷ target). */
    static JFreeChart ratios(JsonNode gpu, JsonNode io, JsonNode ranks) {
        DefaultCategoryDataset data = new DefaultCategoryDataset();
        JsonNode g = gpu.get("figures");
        JsonNode i = io.get("figures");
        JsonNode r = ranks.get("figures");
        add(data, "demo java ÷ cuda (> 1)", g.get("demo_java_over_cuda").asDouble(), 1.0);
        add(data, "materialize ÷ DtoD (≥ 0.9)", g.get("materialize_vs_dtod").asDouble(), 0.9);
        add(data, "shared-KV overhead (≤ 2 %)", 0.02 / g.get("shared_kv_overhead_128k_cp8").asDouble(), 1.0);
        add(data, "tcp ÷ socket (≥ 0.8)", i.get("tcp_vs_socket").asDouble(), 0.8);
        add(data, "journal append (≥ 0.9)", i.get("journal_append_vs_filechannel").asDouble(), 0.9);
        add(data, "journal replay warm (≥ 0.9)", i.get("journal_replay_warm_vs_filechannel").asDouble(), 0.9);
        add(data, "journal replay cold (≥ 0.9)", i.get("journal_replay_cold_vs_filechannel").asDouble(), 0.9);
        add(data, "100K prefix restore (≥ 0.8)", i.get("prefix_restore_vs_slower_bound").asDouble(), 0.8);
        add(data, "ranks: materialize ÷ DtoD (≥ 0.9)", r.get("materialize_vs_dtod").asDouble(), 0.9);
        // within 1 % of 8: the bar is 1 minus the relative miss, over the 0.99 the target allows
        add(data, "ranks: capacity ÷ 8 (± 1 %)", 1 - Math.abs(r.get("capacity_ratio_cp8").asDouble() / 8 - 1), 0.99);
        add(data, "ranks: in-place overhead (≤ 1 %)", 0.01 / Math.max(1e-9, r.get("overhead_in_place_128k_cp8").asDouble()), 1.0);
        JFreeChart chart = ChartFactory.createBarChart("Recorded figures against their targets (1 = target met exactly)", null,
                "figure ÷ target (overhead: target ÷ figure, capped at 3)", data, PlotOrientation.HORIZONTAL, false, false, false);
        CategoryPlot plot = chart.getCategoryPlot();
        ValueMarker target = new ValueMarker(1.0, Color.BLACK, new java.awt.BasicStroke(2f));
        plot.addRangeMarker(target);
        ((BarRenderer) plot.getRenderer()).setSeriesPaint(0, new Color(0x2ca02c));
        return chart;
    }

    private static void add(DefaultCategoryDataset data, String label, double figure, double targetValue) {
        data.addValue(Math.min(3.0, figure / targetValue), "figure ÷ target", label);
    }

    private static void save(JFreeChart chart, Path file) throws IOException {
        ChartUtils.saveChartAsPNG(file.toFile(), chart, WIDTH, HEIGHT);
    }
}
