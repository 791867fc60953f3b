package org.kvflow.samples.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.util.ServiceLoader;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.kvflow.pages.PageMemoryProvider;

/** Where no CUDA device is, a decode pool in GPU memory and the cuda-ipc engine are refused in one line each, before anything starts. */
class NoGpuRefusalTest {
    @BeforeEach
    void onlyWithoutAGpu() {
        int devices = 0;
        for (PageMemoryProvider p : ServiceLoader.load(PageMemoryProvider.class)) {
            devices += p.name().equals("cuda") ? p.devices() : 0;
        }
        assumeThat(devices).as("this machine has a CUDA device: the GPU tests and bench/device/cuda-ipc.sh cover these commands there").isZero();
    }

    @Test
    void aDecodePoolInGpuMemoryIsRefusedNamingTheMemory() {
        Cli.Result r = Cli.run("decode-server", "--device", "cuda", "--layers", "1", "--pages", "16");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.out()).isEmpty();
        assertThat(r.err()).startsWith("kvflow: page memory 'cuda' is unavailable: no CUDA driver or device 0 (").doesNotContain("\n" + "\tat ");
    }

    @Test
    void theCudaIpcEngineIsRefusedNamingItself() {
        Cli.Result r = Cli.run("decode-server", "--device", "cuda", "--engine", "cuda-ipc", "--layers", "1", "--pages", "16");
        assertThat(r.exit()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("kvflow: transfer engine cuda-ipc is unavailable: MemoryUnavailableException: page memory 'cuda' is unavailable:"
                + " device 0 is not here; the provider finds 0" + System.lineSeparator());
        Cli.Result demo = Cli.run("demo", "--backend", "cuda", "--transfer", "cuda-ipc");
        assertThat(demo.exit()).isEqualTo(2);
        assertThat(demo.out()).as("nothing ran").isEmpty();
        assertThat(demo.err()).isEqualTo("kvflow: --transfer: transfer engine cuda-ipc is unavailable: MemoryUnavailableException: page memory 'cuda'"
                + " is unavailable: device 0 is not here; the provider finds 0" + System.lineSeparator());
    }
}
