package org.kvflow.samples.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Closing the demo's decode process lets the child run its shutdown hooks, and still ends a child that hangs in one. */
class DecodeProcessTest {
    /** A stand-in decode server: says it listens, then waits; its shutdown hook leaves a file named after its pid. */
    static final class HookedServer {
        public static void main(String[] args) throws InterruptedException {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    Files.writeString(marker(ProcessHandle.current().pid()), "hooks ran");
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }));
            System.out.println("LISTENING 1");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    /** A child whose shutdown hook never ends. */
    static final class HangingServer {
        public static void main(String[] args) throws InterruptedException {
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                try {
                    Thread.sleep(Long.MAX_VALUE);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            System.out.println("LISTENING 1");
            System.out.flush();
            Thread.sleep(Long.MAX_VALUE);
        }
    }

    @Test
    void closingLetsTheChildRunItsShutdownHooks() throws Exception {
        DecodeProcess child = DecodeProcess.start(HookedServer.class, 4, 64, null);
        Path marker = marker(child.pid());
        try {
            assertThat(child.port()).isEqualTo(1);
            child.close();
            assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive)).as("the child ended").isNotEqualTo(java.util.Optional.of(true));
            assertThat(marker).as("what the child's shutdown hook writes: a child killed outright (SIGKILL) writes nothing").hasContent("hooks ran");
        } finally {
            Files.deleteIfExists(marker);
        }
    }

    @Test
    void aChildHangingInItsShutdownIsKilledAfterTheGrace() throws Exception {
        DecodeProcess child = DecodeProcess.start(HangingServer.class, 4, 64, null);
        long start = System.nanoTime();
        child.close();
        Duration took = Duration.ofNanos(System.nanoTime() - start);
        assertThat(took).as("the grace, then the kill").isBetween(Duration.ofSeconds(4), Duration.ofSeconds(30));
        assertThat(ProcessHandle.of(child.pid()).map(ProcessHandle::isAlive)).as("the child ended").isNotEqualTo(java.util.Optional.of(true));
    }

    private static Path marker(long pid) {
        return Path.of(System.getProperty("java.io.tmpdir"), "kvflow-decode-hook-" + pid);
    }
}
