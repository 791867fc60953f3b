package org.kvflow.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.jfree.data.xy.XYSeriesCollection;
import org.junit.jupiter.api.Test;

/** The capacity chart's data is contract §3.4's: a shared group holds cp·N − 1 usable pages, a replicated one N − 1, at every CP size. */
class DemoChartsTest {
    @Test
    void capacitySeriesFollowTheSpecFormula() {
        XYSeriesCollection data = DemoCharts.capacitySeries(1024, 64);
        assertThat(data.getSeriesKey(0)).isEqualTo("shared KV");
        assertThat(data.getSeries(0).getItemCount()).isEqualTo(7);
        for (int i = 0; i < 7; i++) {
            int cp = 1 << i;
            assertThat(data.getX(0, i).intValue()).isEqualTo(cp);
            assertThat(data.getY(0, i).longValue()).isEqualTo((cp * 1024L - 1) * 64);
            assertThat(data.getY(1, i).longValue()).isEqualTo(1023L * 64);
        }
    }
}
