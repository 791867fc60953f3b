package org.kvflow.samples.cli;

import java.awt.BasicStroke;
import java.awt.Color;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.jfree.chart.ChartFactory;
import org.jfree.chart.ChartUtils;
import org.jfree.chart.JFreeChart;
import org.jfree.chart.axis.LogarithmicAxis;
import org.jfree.chart.plot.PlotOrientation;
import org.jfree.chart.plot.XYPlot;
import org.jfree.chart.renderer.xy.XYLineAndShapeRenderer;
import org.jfree.data.xy.XYSeries;
import org.jfree.data.xy.XYSeriesCollection;
import org.kvflow.traffic.IdealHits;
import org.kvflow.traffic.LayoutReport;
import org.kvflow.traffic.TracePoint;
import org.kvflow.traffic.TraceRequest;

/**
 * {@code kvflow trace --report DIR}: the replay's pictures as PNG files (JFreeChart), shared KV
 * beside replicated over the trace's time: tokens of KV held per rank and of prefix the device
 * cache holds; the hit ratio so far beside an unbounded cache's; and the distribution of time to
 * first token (modelled, with a cost model; else arrival to result on this machine).
 */
final class TraceCharts {
    /** The file names written into the report folder. */
    static final String POOLS = "trace-pools.png";
    static final String HITS = "trace-hit-ratio.png";
    static final String TTFT = "trace-ttft-cdf.png";
    private static final int WIDTH = 900;
    private static final int HEIGHT = 500;

    private TraceCharts() {}

    /** Writes the three charts into {@code dir} (created if needed); returns their paths. */
    static List<Path> write(Path dir, List<TraceRequest> trace, int pageSize, List<LayoutReport> layouts) throws IOException {
        System.setProperty("java.awt.headless", "true");
        Files.createDirectories(dir);
        List<Path> files = List.of(dir.resolve(POOLS), dir.resolve(HITS), dir.resolve(TTFT));
        ChartUtils.saveChartAsPNG(files.get(0).toFile(), pools(layouts, pageSize), WIDTH, HEIGHT);
        ChartUtils.saveChartAsPNG(files.get(1).toFile(), hits(trace, layouts), WIDTH, HEIGHT);
        ChartUtils.saveChartAsPNG(files.get(2).toFile(), ttft(layouts), WIDTH, HEIGHT);
        return files;
    }

    private static JFreeChart pools(List<LayoutReport> layouts, int pageSize) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (LayoutReport r : layouts) {
            XYSeries held = new XYSeries(r.layout() + ": KV held per rank");
            XYSeries cached = new XYSeries(r.layout() + ": prefix the cache holds (whole group)");
            for (TracePoint p : r.timeline()) {
                held.add(p.traceSeconds(), p.pagesPerRank() * pageSize);
                cached.add(p.traceSeconds(), p.cachedPrefixTokens());
            }
            data.addSeries(held);
            data.addSeries(cached);
        }
        JFreeChart chart = ChartFactory.createXYLineChart("Pool occupancy and cached prefix over the trace", "trace seconds", "tokens", data,
                PlotOrientation.VERTICAL, true, false, false);
        XYLineAndShapeRenderer lines = colored(data);
        for (int s = 1; s < data.getSeriesCount(); s += 2) { // held solid, cached dashed
            lines.setSeriesStroke(s, new BasicStroke(2f, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10f, new float[] {6f, 4f}, 0f));
        }
        ((XYPlot) chart.getPlot()).setRenderer(lines);
        return chart;
    }

    /** Shared KV blue, replicated red, anything else green: the same in every chart. */
    private static Color color(String series) {
        return series.startsWith("shared") ? new Color(0x1f77b4) : series.startsWith("replicated") ? new Color(0xd62728) : new Color(0x2ca02c);
    }

    /** Lines in the layouts' colours. */
    private static XYLineAndShapeRenderer colored(XYSeriesCollection data) {
        XYLineAndShapeRenderer lines = new XYLineAndShapeRenderer(true, false);
        for (int s = 0; s < data.getSeriesCount(); s++) {
            lines.setSeriesPaint(s, color(data.getSeriesKey(s).toString()));
            lines.setSeriesStroke(s, new BasicStroke(2f));
        }
        return lines;
    }

    private static JFreeChart hits(List<TraceRequest> trace, List<LayoutReport> layouts) {
        XYSeriesCollection data = new XYSeriesCollection();
        for (LayoutReport r : layouts) {
            XYSeries s = new XYSeries(r.layout());
            r.timeline().forEach(p -> s.add(p.traceSeconds(), p.hitRatio()));
            data.addSeries(s);
        }
        XYSeries ideal = new XYSeries("unbounded cache");
        long[] perRequest = IdealHits.perRequest(trace);
        long hit = 0;
        long input = 0;
        long first = trace.isEmpty() ? 0 : trace.getFirst().timestampMs();
        for (int i = 0; i < perRequest.length; i++) {
            hit += perRequest[i];
            input += trace.get(i).inputLength();
            ideal.add(trace.get(i).secondsAfter(first), (double) hit / input);
        }
        data.addSeries(ideal);
        JFreeChart chart = ChartFactory.createXYLineChart("Prefix-hit ratio of the requests so far", "trace seconds", "hit tokens / prompt tokens",
                data, PlotOrientation.VERTICAL, true, false, false);
        ((XYPlot) chart.getPlot()).setRenderer(colored(data));
        return chart;
    }

    private static JFreeChart ttft(List<LayoutReport> layouts) {
        XYSeriesCollection data = new XYSeriesCollection();
        boolean modelled = layouts.stream().allMatch(r -> r.modelled() != null);
        for (LayoutReport r : layouts) {
            List<Double> seconds = modelled ? r.modelled().ttftSeconds() : r.latencySeconds();
            double[] sorted = seconds.stream().mapToDouble(Double::doubleValue).filter(v -> v > 0).sorted().toArray();
            XYSeries s = new XYSeries(r.layout());
            for (int i = 0; i < sorted.length; i++) {
                s.add(sorted[i], (i + 1.0) / sorted.length);
            }
            data.addSeries(s);
        }
        String what = modelled ? "Time to first token, modelled (" + layouts.getFirst().modelled().costModel() + ")"
                : "Arrival to result on this machine (pages only: not a time to first token)";
        JFreeChart chart = ChartFactory.createXYLineChart(what, "seconds", "fraction of requests", data, PlotOrientation.VERTICAL, true, false, false);
        XYPlot plot = (XYPlot) chart.getPlot();
        LogarithmicAxis log = new LogarithmicAxis("seconds (log scale)");
        log.setAllowNegativesFlag(false);
        plot.setDomainAxis(log);
        plot.setRenderer(colored(data));
        return chart;
    }
}
