package org.kvflow.operators.shard;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.kvflow.core.DiagnosticCheckException;
import org.kvflow.core.ownership.OwnershipMap;

/** Debug mode's owner-write check: a row stored on a rank must map back to the loc it came from. */
class OwnerRowCheckTest {
    @Test
    void aRowOnTheWrongRankOrAtTheWrongOffsetFailsLoudlyAndOnlyInDebugMode() {
        OwnershipMap map = new OwnershipMap(4, 16);
        long loc = 5 * 16 + 3; // page 5: owner 1, local page 1
        String before = System.setProperty("cpskv.debug", "true");
        try {
            assertThatCode(() -> OwnerWriteOperator.checkOwnerRow(map, loc, 1, 16 + 3, "owner write req r")).doesNotThrowAnyException();
            assertThatThrownBy(() -> OwnerWriteOperator.checkOwnerRow(map, loc, 2, 16 + 3, "owner write req r"))
                    .isInstanceOf(DiagnosticCheckException.class)
                    .hasMessage("diagnostic check failed: owner write req r: loc 83 was written to rank 2 row 19, which holds loc 99");
            assertThatThrownBy(() -> OwnerWriteOperator.checkOwnerRow(map, loc, 1, 16 + 4, "owner write req r"))
                    .hasMessage("diagnostic check failed: owner write req r: loc 83 was written to rank 1 row 20, which holds loc 84");
            System.setProperty("cpskv.debug", "false");
            assertThatCode(() -> OwnerWriteOperator.checkOwnerRow(map, loc, 2, 16 + 3, "owner write req r")).doesNotThrowAnyException();
        } finally {
            if (before == null) {
                System.clearProperty("cpskv.debug");
            } else {
                System.setProperty("cpskv.debug", before);
            }
        }
    }
}
