package org.kvflow.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** contract §15 item 43. */
class DebugModeTest {
    @Test
    void benchmarksRefuseToReportWithDiagnosticsOn() {
        String before = System.getProperty("cpskv.debug");
        try {
            System.setProperty("cpskv.debug", "true");
            assertThatThrownBy(() -> DebugMode.refuseBenchmark("AdmissionBenchmark"))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("AdmissionBenchmark: refusing to report a performance result");
            System.setProperty("cpskv.debug", "false");
            assertThatCode(() -> DebugMode.refuseBenchmark("AdmissionBenchmark")).doesNotThrowAnyException();
        } finally {
            if (before == null) {
                System.clearProperty("cpskv.debug");
            } else {
                System.setProperty("cpskv.debug", before);
            }
        }
    }

    @Test
    void checksRunAndCountOnlyWithDiagnosticsOnAndAFailingOneThrows() {
        String before = System.getProperty("cpskv.debug");
        try {
            System.setProperty("cpskv.debug", "false");
            long start = DebugMode.checksRun();
            DebugMode.check(() -> {
                throw new AssertionError("evaluated with diagnostics off");
            }, () -> "never");
            assertThat(DebugMode.checksRun()).isEqualTo(start);
            System.setProperty("cpskv.debug", "true");
            DebugMode.check(() -> true, () -> "never");
            assertThatThrownBy(() -> DebugMode.check(() -> false, () -> "page 7 of rank 2 holds loc 99"))
                    .isInstanceOf(DiagnosticCheckException.class).hasMessage("diagnostic check failed: page 7 of rank 2 holds loc 99");
            assertThat(DebugMode.checksRun()).isEqualTo(start + 2);
        } finally {
            if (before == null) {
                System.clearProperty("cpskv.debug");
            } else {
                System.setProperty("cpskv.debug", before);
            }
        }
    }
}
