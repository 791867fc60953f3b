package org.kvflow.dsl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.kvflow.core.DiagnosticCheckException;
import org.kvflow.core.KvflowException;
import org.kvflow.core.config.ConfigIssue;
import org.kvflow.core.config.ConfigValidationException;
import org.kvflow.core.pool.PoolExhaustedException;
import org.kvflow.core.validate.PageGroupValidationException;
import org.kvflow.core.validate.PageGroupViolation;
import org.kvflow.decode.TransferRejectedException;
import org.kvflow.journal.JournalIoException;
import org.kvflow.operators.AdmissionRejectedException;
import org.kvflow.operators.CpSharedKvBatchException;
import org.kvflow.operators.InvalidRequestException;
import org.kvflow.operators.ReservationException;
import org.kvflow.transport.tcp.DecodeUnreachableException;
import org.kvflow.transport.tcp.TransferHandshakeException;

/**
 * The codes failed requests are counted under ({@code kvflow.rejections{code}}): the contract's where it
 * names the error, kvflow's documented ones elsewhere, never a Java class name.
 */
class ErrorCodeTest {
    @Test
    void everyErrorThatFailsARequestHasItsDocumentedCode() {
        assertThat(new ConfigValidationException(List.of(new ConfigIssue("E-CP-3", "a"), new ConfigIssue("E-PD-1", "b"))).code())
                .isEqualTo("E-CP-3");
        assertThat(new TransferHandshakeException("E-PD-4", "page size / kv dtype mismatch").code()).isEqualTo("E-PD-4");
        assertThat(new PageGroupValidationException(PageGroupViolation.MISALIGNED, 1, 0, 6, 4, "test").code()).isEqualTo("MISALIGNED");
        assertThat(new InvalidRequestException("r", "no tokens").code()).isEqualTo("REQ-INVALID");
        assertThat(new AdmissionRejectedException("r", 10, 5).code()).isEqualTo("ADM-REJECTED");
        assertThat(new ReservationException("r", "twice").code()).isEqualTo("ADM-RESERVATION");
        assertThat(new CpSharedKvBatchException(2).code()).isEqualTo("ADM-BATCH");
        assertThat(new PoolExhaustedException(3, 1).code()).isEqualTo("POOL-EXHAUSTED");
        assertThat(new TransferRejectedException("r", "page 9 is not a decode page").code()).isEqualTo("PD-REJECTED");
        assertThat(new org.kvflow.decode.DecodePoolFullException("r", 9, 2).code()).isEqualTo("PD-POOL-FULL");
        assertThat(new DecodeUnreachableException("timeout").code()).isEqualTo("PD-UNREACHABLE");
        assertThat(new org.kvflow.transfer.TransferEngineUnavailableException("ucx", "libucp.so.0 not found").code()).isEqualTo("PD-ENGINE");
        assertThat(new JournalIoException("disk").code()).isEqualTo("HC-JOURNAL");
        assertThat(new DiagnosticCheckException("view differs").code()).isEqualTo("DEBUG-CHECK");
        assertThat(new org.kvflow.ranks.RankLostException(2, "its process exited").code()).isEqualTo("RANK-LOST");
        assertThat(new org.kvflow.ranks.RankStartException(0, "no room").code()).isEqualTo("RANK-START");
        assertThat(new KvflowException("other").code()).isEqualTo(KvflowException.GENERIC_CODE);
        assertThat(KvflowMetrics.code(new IllegalStateException("bug"))).isEqualTo("INTERNAL");
        assertThat(KvflowMetrics.code(new PoolExhaustedException(3, 1))).isEqualTo("POOL-EXHAUSTED");
    }
}
