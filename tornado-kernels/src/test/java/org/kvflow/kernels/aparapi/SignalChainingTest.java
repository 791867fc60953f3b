package org.kvflow.kernels.aparapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The test JVMs run OpenCL (PoCL in CI), so they must run with the JDK's signal chaining: without
 * it a PoCL test JVM died at a safepoint with "Segmentation fault" (D51). Also how a process's
 * mapped files are read, and what a user without it is told.
 */
class SignalChainingTest {
    @Test
    void thisTestJvmRunsWithSignalChaining() {
        Optional<Boolean> preloaded = SignalChaining.preloaded();
        assumeTrue(preloaded.isPresent(), "this system does not list a process's mapped files (/proc/self/maps): not Linux");
        assertThat(preloaded.get()).as("libjsig preloaded into the test JVM (the POM's signal-chaining profile sets LD_PRELOAD)").isTrue();
    }

    @Test
    void onlyAMappedLibjsigCounts() {
        String jvm = "7f3c1a000000-7f3c1a200000 r-xp 00000000 08:01 1234 /usr/lib/jvm/jdk/lib/server/libjvm.so";
        String jsig = "7f3c1b000000-7f3c1b001000 r-xp 00000000 08:01 1235 /usr/lib/jvm/jdk/lib/libjsig.so";
        assertThat(SignalChaining.preloaded(Stream.of(jvm, "7ffd0000-7ffd1000 rw-p 00000000 00:00 0 [stack]"))).isFalse();
        assertThat(SignalChaining.preloaded(Stream.of(jvm, jsig))).isTrue();
        assertThat(SignalChaining.preloaded(Stream.of(jsig + ".bak"))).isFalse();
    }

    @Test
    void theAdviceNamesTheLibraryOfThisJdk() {
        assertThat(SignalChaining.advice("/opt/jdk-25")).isEqualTo("OpenCL started in a JVM without signal chaining: its platform may"
                + " have replaced the JVM's signal handlers, and the JVM can then die at a safepoint with no error report; run java with"
                + " LD_PRELOAD=/opt/jdk-25/lib/libjsig.so");
    }
}
