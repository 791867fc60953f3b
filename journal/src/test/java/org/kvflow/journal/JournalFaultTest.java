package org.kvflow.journal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.kvflow.journal.record.PageBackup;
import org.kvflow.journal.replay.HostPageCache;
import org.kvflow.journal.replay.JournalReplayer;
import org.kvflow.journal.replay.ReplayReport;
import org.kvflow.journal.replay.ReplayStart;

/** Crash, unwritable location and disk full: typed errors, nothing completed is lost. */
class JournalFaultTest {
    @TempDir
    Path dir;

    private static Process child(String mode, Path journal, int pages) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments().stream()
                .filter(a -> a.startsWith("--add-") || a.startsWith("-D") || a.startsWith("--enable-native") || a.startsWith("--sun-misc"))
                .toList());
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), JournalChild.class.getName(), mode, journal.toString(),
                Integer.toString(pages)));
        return new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static HostPageCache replayAll(Path journal, ReplayReport[] report) {
        HostPageCache cache = new HostPageCache(1L << 30);
        report[0] = JournalReplayer.replay(journal, ReplayStart.fromStart(), JournalReplayer.OnCorrupt.SKIP, cache, (r, b) -> { });
        return cache;
    }

    @Test
    void sigkillMidStreamLosesNoCompletedRecordAndLeavesNoPartialOne() throws Exception {
        Process p = child("crash", dir, 4000);
        List<long[]> completed = new ArrayList<>();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                if (line.startsWith("OK ")) {
                    String[] f = line.split(" ");
                    completed.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
                    if (completed.size() == 1500) {
                        break; // mid-stream: the child is still appending
                    }
                }
            }
            p.destroyForcibly(); // SIGKILL
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(p.exitValue()).isEqualTo(137);
        List<PageBackup> expected = TestPages.prompt(77, 4000);
        ReplayReport[] report = new ReplayReport[1];
        HostPageCache cache = replayAll(dir, report);
        assertThat(report[0].rejected()).as("no torn or partial record").isEmpty();
        assertThat(report[0].records()).isGreaterThanOrEqualTo(completed.size());
        for (long[] c : completed) {
            PageBackup page = expected.get((int) c[0]);
            assertThat(cache.get(page.pageHash(), page.pool())).as("record %d at %s", c[0], Long.toHexString(c[1])).isEqualTo(page);
        }
        // the journal goes on after the crash: a new appender continues
        try (HiCacheJournal journal = HiCacheJournal.open(TestPages.options(dir))) {
            long next = journal.backup(TestPages.prompt(5, 1).getFirst(), TestPages.locs(0));
            assertThat(next).isGreaterThan(completed.getLast()[1]);
        }
    }

    @Test
    void aPathBelowARegularFileIsRefusedAtOpen() throws IOException {
        Path file = Files.writeString(dir.resolve("plain-file"), "x");
        assertThatThrownBy(() -> HiCacheJournal.open(TestPages.options(file.resolve("journal"))))
                .isInstanceOf(JournalIoException.class)
                .hasMessage("cannot open the journal at " + file.resolve("journal") + ": " + file + " is not a directory");
    }

    @Test
    void aReadOnlyMountIsRefusedAtOpen() throws Exception {
        Path ro = Files.createDirectories(dir.resolve("ro"));
        Process mount = new ProcessBuilder("mount", "-o", "bind,ro", ro.toString(), ro.toString()).redirectErrorStream(true).start();
        String output = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        Assumptions.assumeTrue(mount.waitFor() == 0, "read-only bind mount refused here, not testable: " + output);
        try {
            assertThatThrownBy(() -> HiCacheJournal.open(TestPages.options(ro.resolve("journal"))))
                    .isInstanceOf(JournalIoException.class).hasMessageContaining("cannot create the journal directory");
            assertThatThrownBy(() -> HiCacheJournal.open(TestPages.options(ro))).isInstanceOf(JournalIoException.class)
                    .hasMessageContaining("not writable");
        } finally {
            new ProcessBuilder("umount", ro.toString()).start().waitFor();
        }
    }

    @Test
    void diskFullIsATypedErrorAndEveryReportedRecordSurvives() throws Exception {
        Path small = Files.createDirectories(dir.resolve("tmpfs"));
        Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", small.toString()).redirectErrorStream(true).start();
        String output = new String(mount.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        Assumptions.assumeTrue(mount.waitFor() == 0, "tmpfs mount refused here, disk-full not testable: " + output);
        try {
            Path journal = small.resolve("journal");
            Process p = child("fill", journal, 100_000);
            List<String> lines = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as("the child ended normally, not by SIGBUS").isZero();
            assertThat(lines.getLast()).startsWith("FULL journal backup ").contains("journal needs ").contains("the file system has");
            List<String> ok = lines.stream().filter(l -> l.startsWith("OK ")).toList();
            assertThat(ok).isNotEmpty();
            ReplayReport[] report = new ReplayReport[1];
            HostPageCache cache = replayAll(journal, report);
            assertThat(report[0].rejected()).isEmpty();
            List<PageBackup> expected = TestPages.prompt(77, 100_000);
            for (String line : ok) {
                PageBackup page = expected.get(Integer.parseInt(line.split(" ")[1]));
                assertThat(cache.get(page.pageHash(), page.pool())).isEqualTo(page);
            }
        } finally {
            new ProcessBuilder("umount", small.toString()).start().waitFor();
        }
    }
}
