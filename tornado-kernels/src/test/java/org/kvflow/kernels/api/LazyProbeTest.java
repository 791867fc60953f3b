package org.kvflow.kernels.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Selecting the {@code java} device starts no OpenCL runtime: in a fresh JVM, where loading the
 * backends would otherwise make Aparapi list the platforms (and PoCL warn about itself), nothing
 * OpenCL is printed. Needs an OpenCL platform here to mean anything; CI installs PoCL.
 */
class LazyProbeTest {
    /** Run in a child JVM: selects the java device and prints what it got. */
    public static void main(String[] args) {
        System.out.println("selected " + Devices.select("java").selector());
    }

    @Test
    void selectingJavaStartsNoOpenClRuntime() throws Exception {
        assumeTrue(Devices.openCl().isPresent(), "no OpenCL platform here: nothing could be probed either way");
        List<String> command = List.of(ProcessHandle.current().info().command().orElseThrow(), "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), LazyProbeTest.class.getName());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("selected java").doesNotContainIgnoringCase("opencl").doesNotContain("PoCL");
    }
}
