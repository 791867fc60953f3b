package org.kvflow.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class FailuresTest {
    private static final Throwable NATIVE = new UnsatisfiedLinkError("Error while loading native library \"JCudaDriver-12.0.0-linux-x86_64\"\r\n"
            + "Operating system name: Linux\n---(start of nested stack traces)---\n\tat somewhere");

    @Test
    void aFailureIsItsTypeAndTheFirstLineOfItsMessage() {
        assertThat(Failures.brief(NATIVE, false)).isEqualTo("UnsatisfiedLinkError: Error while loading native library \"JCudaDriver-12.0.0-linux-x86_64\"");
        assertThat(Failures.brief(new IllegalStateException(), false)).isEqualTo("IllegalStateException");
    }

    @Test
    void theTraceSwitchKeepsTheWholeMessage() {
        assertThat(Failures.brief(NATIVE, true)).isEqualTo(NATIVE.toString()).contains("nested stack traces");
    }
}
