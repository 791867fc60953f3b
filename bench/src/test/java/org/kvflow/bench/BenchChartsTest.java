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
}
