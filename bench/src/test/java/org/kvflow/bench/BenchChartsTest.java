package org.kvflow.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.image.BufferedImage;
import java.nio.file.Path;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The docs' charts are drawn from the committed records: both come out as 900 × 480 PNG images. */
class BenchChartsTest {
    @Test
    void bothChartsAreDrawnFromTheCommittedRecords(@TempDir Path out) throws Exception {
        BenchCharts.main(new String[] {Path.of("results").toAbsolutePath().toString(), out.toString()});
        for (String name : new String[] {"gpu-prefill-stages.png", "ratios-vs-targets.png"}) {
            BufferedImage image = ImageIO.read(out.resolve(name).toFile());
            assertThat(image).as(name).isNotNull();
            assertThat(new int[] {image.getWidth(), image.getHeight()}).containsExactly(900, 480);
        }
    }

    /** The targets chart carries the rank-process figures too, each as figure ÷ target. */
    @Test
    void theTargetsChartShowsTheRankProcessFigures() throws Exception {
        com.fasterxml.jackson.databind.ObjectMapper json = new com.fasterxml.jackson.databind.ObjectMapper();
        Path results = Path.of("results").toAbsolutePath();
        com.fasterxml.jackson.databind.JsonNode ranks = json.readTree(results.resolve("rank-processes.json").toFile());
        var chart = BenchCharts.ratios(json.readTree(results.resolve("gpu-pipeline.json").toFile()),
                json.readTree(results.resolve("io-speed.json").toFile()), ranks);
        var data = chart.getCategoryPlot().getDataset();
        assertThat(data.getValue("figure ÷ target", "ranks: materialize ÷ DtoD (≥ 0.9)").doubleValue())
                .isCloseTo(ranks.get("figures").get("materialize_vs_dtod").asDouble() / 0.9, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(data.getValue("figure ÷ target", "ranks: capacity ÷ 8 (± 1 %)").doubleValue())
                .isCloseTo((1 - Math.abs(ranks.get("figures").get("capacity_ratio_cp8").asDouble() / 8 - 1)) / 0.99, org.assertj.core.data.Offset.offset(1e-9));
        assertThat(data.getColumnCount()).isEqualTo(11);
    }
}
