package org.kvflow.journal.replay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The read-ahead reads every cycle file in order, never past its window ahead of the readers. */
class JournalReadAheadTest {
    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    @Test
    void itStaysWithinItsWindowAndReadsEveryFileOnceTheReadersMoveOn() throws IOException {
        Files.write(dir.resolve("20261201.cq4"), new byte[20 * MIB]);
        Files.write(dir.resolve("20261202.cq4"), new byte[5 * MIB]);
        Files.write(dir.resolve("metadata.cq4t"), new byte[MIB]); // not a cycle file
        AtomicLong readers = new AtomicLong();
        try (JournalReadAhead ahead = new JournalReadAhead(dir, 16L * MIB, readers::get)) {
            assertThat(ahead.step()).isEqualTo(JournalReadAhead.Step.READ);
            assertThat(ahead.step()).isEqualTo(JournalReadAhead.Step.READ);
            assertThat(ahead.position()).isEqualTo(16L * MIB);
            assertThat(ahead.step()).as("a third read would run past the window").isEqualTo(JournalReadAhead.Step.WAIT);
            readers.set(20L * MIB);
            int steps = 0;
            JournalReadAhead.Step step;
            while ((step = ahead.step()) != JournalReadAhead.Step.DONE) {
                assertThat(step).isEqualTo(JournalReadAhead.Step.READ);
                steps++;
            }
            assertThat(ahead.position()).isEqualTo(25L * MIB);
            assertThat(steps).as("4 MiB and an end of the first file, 5 MiB and an end of the second").isEqualTo(4);
        }
    }

    @Test
    void aRunningReadAheadReadsToTheEndAndStopsWhenClosed() throws IOException, InterruptedException {
        Files.write(dir.resolve("20261201.cq4"), new byte[3 * MIB]);
        try (JournalReadAhead ahead = JournalReadAhead.start(dir, 8L * MIB, () -> 0)) {
            for (int polls = 0; ahead.position() < 3L * MIB && polls < 10_000; polls++) { // at most about 10 s
                Thread.sleep(1);
            }
            assertThat(ahead.position()).isEqualTo(3L * MIB);
        }
    }

    @Test
    void aReaderWaitsUntilTheReadAheadIsPastItsOffsetOrDone() throws Exception {
        Files.write(dir.resolve("20261201.cq4"), new byte[12 * MIB]);
        try (JournalReadAhead ahead = new JournalReadAhead(dir, 64L * MIB, () -> 0)) {
            Thread past = Thread.ofPlatform().start(() -> ahead.awaitPast(10L * MIB));
            Thread beyond = Thread.ofPlatform().start(() -> ahead.awaitPast(100L * MIB));
            past.join(200);
            assertThat(past.isAlive()).as("nothing read yet").isTrue();
            ahead.step(); // 8 MiB
            past.join(200);
            assertThat(past.isAlive()).as("8 MiB read, 10 asked").isTrue();
            ahead.step(); // 12 MiB
            past.join(5_000);
            assertThat(past.isAlive()).isFalse();
            assertThat(beyond.isAlive()).as("past the files' end it waits for the end").isTrue();
            while (ahead.step() != JournalReadAhead.Step.DONE) {
                // read to the end
            }
            beyond.join(5_000);
            assertThat(beyond.isAlive()).as("released once every file is read").isFalse();
            assertThat(ahead.done()).isTrue();
        }
    }

    @Test
    void aWindowSmallerThanOneReadIsRefused() {
        assertThatThrownBy(() -> JournalReadAhead.start(dir, MIB, () -> 0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a read-ahead window of 1048576 bytes is smaller than one read of 8388608");
    }
}
