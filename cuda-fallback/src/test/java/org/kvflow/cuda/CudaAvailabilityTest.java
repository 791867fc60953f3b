package org.kvflow.cuda;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.kvflow.kernels.copy.CopierUnavailableException;
import org.kvflow.kernels.copy.PageCopier;
import org.kvflow.kernels.copy.PageCopiers;

/** Without a driver the copier fails with a typed error the caller can act on; by name through ServiceLoader. */
class CudaAvailabilityTest {
    @Test
    void cudaIsRegisteredByName() {
        assertThat(PageCopiers.names()).containsExactly("java", "cuda");
    }

    @Test
    void withoutADriverOpeningFailsWithATypedError() {
        PageCopier opened = null;
        try {
            opened = PageCopiers.open("cuda");
        } catch (CopierUnavailableException e) {
            assertThat(e.copier()).isEqualTo("cuda");
            assertThat(e.getMessage()).startsWith("page copier 'cuda' is unavailable: no CUDA driver or device 0");
            // the caller chooses another copier
            try (PageCopier fallback = PageCopiers.open("java")) {
                assertThat(fallback.name()).isEqualTo("java");
            }
            return;
        }
        try (PageCopier present = opened) {
            Assumptions.abort("a CUDA device is present here (" + present.deviceName() + "): the no-driver path is not reachable");
        }
    }

    @Test
    void unknownNamesListWhatExists() {
        assertThatThrownBy(() -> PageCopiers.open("tpu"))
                .isInstanceOf(CopierUnavailableException.class)
                .hasMessage("page copier 'tpu' is unavailable: no provider of that name; available: [java, cuda]");
    }
}
