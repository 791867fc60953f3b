package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A flood of refusals costs a bounded number of log lines, and the next line says how many were held back. */
class RefusalLogTest {
    @Test
    void atMostTheRateIsLoggedAndTheRestIsCounted() {
        List<String> lines = new ArrayList<>();
        long[] now = {0};
        RefusalLog log = new RefusalLog(lines::add, 3, () -> now[0]);
        for (int i = 0; i < 10; i++) {
            log.refused("/127.0.0.1:5000", "E-PD-0", "empty frame");
        }
        assertThat(lines).containsExactly("decode server refused E-PD-0 from /127.0.0.1:5000: empty frame",
                "decode server refused E-PD-0 from /127.0.0.1:5000: empty frame", "decode server refused E-PD-0 from /127.0.0.1:5000: empty frame");
        now[0] = 1_000_000_000L;
        log.refused("/127.0.0.1:5001", "E-PD-OWNER", "request a was opened by another connection");
        assertThat(lines.getLast()).isEqualTo("decode server refused E-PD-OWNER from /127.0.0.1:5001: request a was opened by another connection"
                + " (7 refusals before this one not logged)");
        assertThat(log.total()).isEqualTo(11);
    }

    @Test
    void theLatestRefusalsAreKeptLoggedOrHeldBackOldestFirst() {
        List<String> lines = new ArrayList<>();
        RefusalLog log = new RefusalLog(lines::add, 1, () -> 0L);
        assertThat(log.recent()).isEmpty();
        for (int i = 0; i < RefusalLog.RECENT + 5; i++) {
            log.refused("/127.0.0.1:" + (6000 + i), "E-PD-0", "frame " + i);
        }
        assertThat(lines).as("one a second logged").containsExactly("decode server refused E-PD-0 from /127.0.0.1:6000: frame 0");
        List<String> recent = log.recent();
        assertThat(recent).hasSize(RefusalLog.RECENT);
        assertThat(recent.getFirst()).isEqualTo("decode server refused E-PD-0 from /127.0.0.1:6005: frame 5");
        assertThat(recent.getLast()).isEqualTo("decode server refused E-PD-0 from /127.0.0.1:6036: frame 36");
        assertThat(log.total()).isEqualTo(RefusalLog.RECENT + 5);
    }

    @Test
    void aLongReasonIsCutInTheLogAndInWhatIsKept() {
        List<String> lines = new ArrayList<>();
        RefusalLog log = new RefusalLog(lines::add, 10, () -> 0L);
        String prefix = "decode server refused E-PD-ENGINE from /127.0.0.1:7000: not ";
        String fits = "x".repeat(RefusalLog.LINE_CHARS - prefix.length());
        log.refused("/127.0.0.1:7000", "E-PD-ENGINE", "not " + fits);
        assertThat(lines.getLast()).as("a line of exactly the limit is whole").isEqualTo(prefix + fits);
        log.refused("/127.0.0.1:7000", "E-PD-ENGINE", "not " + "y".repeat(100_000));
        String cut = prefix + "y".repeat(RefusalLog.LINE_CHARS - prefix.length()) + "… (" + (prefix.length() + 100_000) + " characters)";
        assertThat(lines.getLast()).isEqualTo(cut);
        assertThat(log.recent()).containsExactly(prefix + fits, cut);
    }
}
