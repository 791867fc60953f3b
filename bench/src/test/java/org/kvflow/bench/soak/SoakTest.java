package org.kvflow.bench.soak;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The soak, small: runs cancelled at random and decode servers restarted under load leave no page, no decode session and no wrong KV behind. */
class SoakTest {
    @TempDir
    Path dir;

    @Test
    void aSmallSoakLeavesNothingBehind() {
        Soak.Report report = new Soak(6_000, 3, 7, Duration.ofMillis(1_500), Soak.Faults.NONE).run();
        assertNothingLeftAndKvRight(report, 6_000);
        assertThat(report.outcomes()).as("every failure a typed transfer error; no run failed as a whole")
                .allSatisfy((outcome, count) -> assertThat(outcome).isIn("completed", "failed", "not_delivered", "cancelled_undelivered", "undelivered"));
        assertThat(report.ranks()).isEqualTo(new Soak.RankFaults(0, 0, 0));
        assertThat(report.journal()).isEqualTo(new Soak.JournalFill(0, 0, 0, 0));
    }

    /**
     * With rank processes killed under load and, where a small tmpfs can be mounted (root), a
     * journal that fills: the killed ranks' requests fail typed and the ranks come back, the full
     * journal refuses backups without costing a request, and what it took replays whole.
     */
    @Test
    void aSmallSoakWithRanksKilledAndAJournalThatFillsLeavesNothingBehind() throws Exception {
        Path small = Files.createDirectories(dir.resolve("small"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", small.toString()).redirectErrorStream(true).start();
        String said = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        boolean mounted = mount.waitFor() == 0;
        if (!mounted) {
            System.err.println("SoakTest: no tmpfs mount here (" + said + "): the journal runs on the temporary directory's file system, which does not fill");
        }
        try {
            Soak.Report report = new Soak(4_000, 2, 11, Duration.ofMillis(1_500), new Soak.Faults(small.resolve("journal"), true)).run();
            assertNothingLeftAndKvRight(report, 4_000);
            assertThat(report.outcomes()).as("every failure typed; no run failed as a whole").allSatisfy((outcome, count) -> assertThat(outcome)
                    .isIn("completed", "failed", "not_delivered", "cancelled_undelivered", "undelivered"));
            assertThat(report.ranks().kills()).as("rank processes killed under load").isPositive();
            assertThat(report.ranks().lost()).as("kills the pipelines saw").isPositive().isLessThanOrEqualTo(report.ranks().kills());
            assertThat(report.ranks().restarted()).as("lost ranks started again").isPositive();
            assertThat(report.journal().pages()).as("pages journaled").isPositive();
            assertThat(report.journal().damaged()).as("records refused or files damaged on replay").isZero();
            assertThat(report.journal().replayed()).as("every journaled page replays").isEqualTo(report.journal().pages());
            if (mounted) {
                assertThat(report.journal().refused()).as("backups the full journal refused").isPositive();
            }
        } finally {
            if (mounted) {
                new ProcessBuilder("umount", small.toString()).start().waitFor();
            }
        }
    }

    @Test
    void anUnknownFlagOrAMissingDirectoryIsRefusedNamingIt() {
        assertThatThrownBy(() -> Soak.Faults.parse(List.of("--kill-rank"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("unknown soak flag '--kill-rank': --journal DIR, --kill-ranks");
        assertThatThrownBy(() -> Soak.Faults.parse(List.of("--journal"))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--journal needs a directory");
        assertThat(Soak.Faults.parse(List.of("--journal", "j", "--kill-ranks"))).isEqualTo(new Soak.Faults(Path.of("j"), true));
        assertThatThrownBy(() -> new Soak(1, 1, 1, Duration.ofSeconds(1), new Soak.Faults(null, true))).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("--kill-ranks needs a second pipeline: pipelines=1");
    }

    private static void assertNothingLeftAndKvRight(Soak.Report report, long requests) {
        assertThat(report.requests()).isEqualTo(requests);
        assertThat(report.pagesNotReturned()).as("pages not back in any pool").isZero();
        assertThat(report.decodeSessionsLeft()).as("decode sessions left").isZero();
        assertThat(report.wrongKv()).as("requests whose decode KV differs from a replicated run's").isZero();
        assertThat(report.kvChecked()).as("requests whose KV was checked").isPositive();
        assertThat(report.restarts()).as("decode restarts under load").isPositive();
        assertThat(report.completedAfterRestart()).isPositive();
        assertThat(report.outcomes().getOrDefault("failed", 0L)).isEqualTo(report.failedWithTypedErrorDuringFaults());
    }
}
