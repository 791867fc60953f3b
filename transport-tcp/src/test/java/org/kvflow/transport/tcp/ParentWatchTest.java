package org.kvflow.transport.tcp;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** A decode server started with a parent pid stops when that process is gone. */
class ParentWatchTest {
    @Test
    void theWatchCompletesWhenTheParentExitsAndAtOnceWhenThereIsNone() throws Exception {
        Process parent = new ProcessBuilder("sleep", "30").start();
        var watch = ParentWatch.exitOf(parent.pid());
        TimeUnit.MILLISECONDS.sleep(100);
        assertThat(watch).isNotDone();
        parent.destroyForcibly();
        watch.get(5, TimeUnit.SECONDS);
        assertThat(watch).isDone();
        assertThat(ParentWatch.exitOf(parent.pid())).succeedsWithin(java.time.Duration.ofSeconds(1));
    }
}
