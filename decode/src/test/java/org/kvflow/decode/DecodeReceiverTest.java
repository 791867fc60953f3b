package org.kvflow.decode;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class DecodeReceiverTest {
    @Test
    void readyOnlyAfterEveryRankCompletesAndEveryPageIsWritten() {
        DecodeReceiver receiver = new DecodeReceiver(16, 4, null);
        long[] d = receiver.open("a", 3, 2);
        assertThat(d).containsExactly(1, 2, 3);
        receiver.accept("a", 0, pages(1, 2), null);
        receiver.complete("a", 0);
        assertThat(receiver.isReady("a")).isFalse();
        receiver.complete("a", 1);
        assertThat(receiver.isReady("a")).as("position 2 was never written").isFalse();
        receiver.accept("a", 1, pages(3, 1), null);
        assertThat(receiver.isReady("a")).isTrue();
        assertThat(receiver.writtenPages("a")).isEqualTo(3);
    }

    @Test
    void countsAndRanksFromTheWireAreBoundedBeforeAnythingIsKept() {
        DecodeReceiver receiver = new DecodeReceiver(8, 4, null);
        assertThatThrownBy(() -> receiver.open("a", 0x7FFFFFFF, 1)).isInstanceOf(TransferRejectedException.class)
                .hasMessage("transfer of request a rejected: 2147483647 pages outside [1, 7]");
        assertThatThrownBy(() -> receiver.open("a", 1, 0)).hasMessage("transfer of request a rejected: 0 senders; at least 1");
        receiver.open("a", 1, 2);
        assertThatThrownBy(() -> receiver.complete("a", 0x7FFFFFFF))
                .hasMessage("transfer of request a rejected: completion from rank 2147483647, outside [0, 2)");
        assertThatThrownBy(() -> receiver.complete("a", -1)).hasMessage("transfer of request a rejected: completion from rank -1, outside [0, 2)");
        assertThat(receiver.pageCount("a")).isEqualTo(1);
        assertThat(receiver.pageCount("ghost")).isZero();
    }

    @Test
    void pagesForUnknownRequestsOrPositionsAreRejectedCountedAndNeverWritten() {
        DecodeReceiver receiver = new DecodeReceiver(16, 4, null);
        receiver.open("a", 2, 2);
        assertThatThrownBy(() -> receiver.accept("ghost", 0, pages(1, 1), null))
                .isInstanceOf(TransferRejectedException.class)
                .hasMessage("transfer of request ghost rejected: unknown request (rank 0, 1 pages)");
        assertThatThrownBy(() -> receiver.accept("a", 0, pages(2, 2), null))
                .hasMessage("transfer of request a rejected: decode page 3 is not one of its pages (rank 0)");
        assertThat(receiver.writtenPages("a")).isZero();
        receiver.accept("a", 0, pages(1, 1), null);
        assertThatThrownBy(() -> receiver.accept("a", 1, pages(1, 1), null))
                .hasMessage("transfer of request a rejected: position 0 written twice (rank 1)");
        assertThatThrownBy(() -> receiver.accept("a", 2, pages(2, 1), null))
                .hasMessage("transfer of request a rejected: pages from rank 2, outside [0, 2)");
        assertThat(receiver.rejectedPages()).isEqualTo(5);
    }

    @Test
    void completionRulesAndRelease() {
        DecodeReceiver receiver = new DecodeReceiver(8, 4, null);
        receiver.open("a", 2, 2);
        receiver.complete("a", 1);
        assertThatThrownBy(() -> receiver.complete("a", 1)).hasMessage("transfer of request a rejected: rank 1 completed twice");
        assertThatThrownBy(() -> receiver.complete("b", 0)).isInstanceOf(TransferRejectedException.class);
        assertThatThrownBy(() -> receiver.open("a", 1, 1)).hasMessage("transfer of request a rejected: already open");
        assertThat(receiver.pagesInUse()).isEqualTo(2);
        receiver.release("a");
        assertThat(receiver.pagesInUse()).isZero();
        assertThat(receiver.openSessions()).isZero();
    }

    /** Decode pages {@code first .. first + count - 1}. */
    private static long[] pages(long first, int count) {
        return java.util.stream.LongStream.range(first, first + count).toArray();
    }
}
