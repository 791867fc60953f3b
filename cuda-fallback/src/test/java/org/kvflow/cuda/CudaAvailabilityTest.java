package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.pages.MemoryUnavailableException;
import org.kvflow.kernels.pages.PageMemory;
import org.kvflow.kernels.pages.PageMemories;

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
}
