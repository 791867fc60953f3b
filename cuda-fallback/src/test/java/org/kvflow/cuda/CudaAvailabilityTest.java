package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.kvflow.pages.MemoryUnavailableException;
import org.kvflow.pages.PageMemory;
import org.kvflow.pages.PageMemories;

/** Without a driver the cuda page memory fails with a typed error the caller can act on; by name through ServiceLoader. */
class CudaAvailabilityTest {
    @Test
    void cudaIsRegisteredByName() {
        assertThat(PageMemories.names()).containsExactly("java", "cuda");
    }

    @Test
    void withoutADriverOpeningFailsWithATypedError() {
        PageMemory opened = null;
        try {
            opened = PageMemories.open("cuda");
        } catch (MemoryUnavailableException e) {
            assertThat(e.memory()).isEqualTo("cuda");
            assertThat(e.getMessage()).startsWith("page memory 'cuda' is unavailable: no CUDA driver or device 0");
            // the caller chooses another memory
            try (PageMemory fallback = PageMemories.open("java")) {
                assertThat(fallback.name()).isEqualTo("java");
            }
            return;
        }
        try (PageMemory present = opened) {
            Assumptions.abort("a CUDA device is present here (" + present.deviceName() + "): the no-driver path is not reachable");
        }
    }

    @Test
    void unknownNamesListWhatExists() {
        assertThatThrownBy(() -> PageMemories.open("tpu"))
                .isInstanceOf(MemoryUnavailableException.class)
                .hasMessage("page memory 'tpu' is unavailable: no provider of that name; available: [java, cuda]");
    }

    /** {@code cuda:*} puts rank r on GPU r mod n: with no device there is nowhere to put it, and the error says so. */
    @Test
    void oneRankPerGpuWrapsAroundTheDevicesOrNamesTheRankWithNone() {
        int devices = new CudaPageMemoryProvider().devices();
        if (devices == 0) {
            assertThatThrownBy(() -> PageMemories.forRank("cuda:*", 3)).isInstanceOf(MemoryUnavailableException.class)
                    .hasMessage("page memory 'cuda:*' is unavailable: no cuda device to place rank 3 on");
        } else {
            assertThat(PageMemories.forRank("cuda:*", 3)).isEqualTo("cuda:" + 3 % devices);
        }
        assertThat(PageMemories.forRank("cuda:1", 3)).as("an explicit device stays").isEqualTo("cuda:1");
        assertThat(PageMemories.forRank("java:*", 3)).isEqualTo("java");
        assertThatThrownBy(() -> PageMemories.forRank("tpu:*", 0)).isInstanceOf(MemoryUnavailableException.class)
                .hasMessage("page memory 'tpu:*' is unavailable: no provider of that name; available: [java, cuda]");
    }

    /** A definition checks that the memory is there without opening it: a device beyond the driver's count is named. */
    @Test
    void aCheckFindsTheProviderAndTheDeviceWithoutOpeningIt() {
        int devices = new CudaPageMemoryProvider().devices();
        assertThatThrownBy(() -> PageMemories.check("cuda:" + devices)).isInstanceOf(MemoryUnavailableException.class)
                .hasMessage("page memory 'cuda:" + devices + "' is unavailable: device " + devices + " is not here; the provider finds " + devices);
        assertThatThrownBy(() -> PageMemories.check("cuda:-1")).isInstanceOf(MemoryUnavailableException.class)
                .hasMessage("page memory 'cuda:-1' is unavailable: device -1 is not here; the provider finds " + devices);
        if (devices > 0) {
            PageMemories.check("cuda:" + (devices - 1));
        }
    }
}
