package org.kvflow.samples.demo;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.NumberAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.kvflow.core.pool.PoolCapacity;
import org.kvflow.core.pool.PoolLayout;

/**
 * The demo's pictures, as PNG files made with JFreeChart: the physical pages each CP rank held over
 * each run (sampled every 2 ms), shared KV against replicated, and the logical KV capacity a CP group gets
 * from the same per-rank pool at each CP size (contract §3.4).
 */
public final class DemoCharts {
    /** The file names written into the report folder. */
    public static final String PAGES = "pages-per-rank.png";
    public static final String CAPACITY = "capacity-vs-cp.png";
    static final int WIDTH = 900;
    static final int HEIGHT = 500;

    private DemoCharts() {}

    /** Writes both charts of {@code report} into {@code dir} (created if needed); returns their paths. */
    public static List<Path> write(Path dir, DemoReport report, int pageSize) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(dir);
        Path pages = dir.resolve(PAGES);
        Path capacity = dir.resolve(CAPACITY);
        ChartUtils.saveChartAsPNG(pages.toFile(), pagesChart(report), WIDTH, HEIGHT);
        ChartUtils.saveChartAsPNG(capacity.toFile(), capacityChart(report.pagesPerRank(), pageSize, report.cpSize()), WIDTH, HEIGHT);
        return List.of(pages, capacity);
    }

    /** One line per rank and layout: physical pages held against time into the run. */
    static JFreeChart pagesChart(DemoReport report) {
        XYSeriesCollection data = new XYSeriesCollection();
        addRanks(data, "shared", report.sharedPages());
        addRanks(data, "replicated", report.replicatedPages());
        JFreeChart chart = ChartFactory.createXYLineChart("Physical pages held per CP rank (CP" + report.cpSize() + ")",
                "milliseconds into the run", "physical pages on the rank", data, PlotOrientation.VERTICAL, true, false, false);
        XYLineAndShapeRenderer lines = new XYLineAndShapeRenderer(true, false);
        for (int s = 0; s < data.getSeriesCount(); s++) {
            boolean shared = data.getSeriesKey(s).toString().startsWith("shared");
            lines.setSeriesPaint(s, shared ? new Color(0x1f77b4) : new Color(0xd62728));
            lines.setSeriesStroke(s, new BasicStroke(shared ? 1.5f : 1.0f));
            lines.setSeriesVisibleInLegend(s, s == 0 || s == report.cpSize());
        }
        ((XYPlot) chart.getPlot()).setRenderer(lines);
        return chart;
    }

    private static void addRanks(XYSeriesCollection data, String layout, PagesTimeline timeline) {
        List<PagesTimeline.Sample> samples = timeline.samples();
        int ranks = samples.isEmpty() ? 0 : samples.getFirst().perRank().length;
        for (int r = 0; r < ranks; r++) {
            XYSeries series = new XYSeries(layout + (r == 0 ? " (one line per rank)" : " rank " + r));
            for (PagesTimeline.Sample s : samples) {
                series.add(s.millis(), s.perRank()[r]);
            }
            data.addSeries(series);
        }
    }

    /** Usable logical tokens of a CP group whose ranks each hold {@code pagesPerRank} pages, shared and replicated, CP 1 … 64. */
    static XYSeriesCollection capacitySeries(int pagesPerRank, int pageSize) {
        PoolCapacity capacity = PoolCapacity.ofPages(pagesPerRank, pageSize);
        XYSeries shared = new XYSeries("shared KV");
        XYSeries replicated = new XYSeries("replicated");
        for (int cp = 1; cp <= 64; cp *= 2) {
            shared.add(cp, capacity.usableLogicalTokens(PoolLayout.SHARED, cp));
            replicated.add(cp, capacity.usableLogicalTokens(PoolLayout.REPLICATED, cp));
        }
        XYSeriesCollection data = new XYSeriesCollection();
        data.addSeries(shared);
        data.addSeries(replicated);
        return data;
    }

    static JFreeChart capacityChart(int pagesPerRank, int pageSize, int demoCp) {
        JFreeChart chart = ChartFactory.createXYLineChart("Logical KV capacity from " + pagesPerRank + " pages of " + pageSize
                        + " tokens per rank (the demo ran CP" + demoCp + ")", "CP size", "tokens of KV the group can hold",
                capacitySeries(pagesPerRank, pageSize), PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = (XYPlot) chart.getPlot();
        ((NumberAxis) plot.getDomainAxis()).setStandardTickUnits(NumberAxis.createIntegerTickUnits());
        plot.setRenderer(new XYLineAndShapeRenderer(true, true));
        return chart;
    }
}
