package org.kvflow.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** Host traffic goes to the stage marked on the moving thread, marks nest, and other threads are nobody's. */
class HostTrafficTest {
    @Test
    void bytesGoToTheInnermostMarkOnTheMovingThreadOnly() throws Exception {
        HostTraffic traffic = new HostTraffic();
        HostTraffic.during("kvflow.backup", () -> {
            traffic.add(10);
            HostTraffic.during("kvflow.transfer", () -> {
                traffic.add(3);
                return null;
            });
            traffic.add(5); // the outer mark is back
            CompletableFuture.runAsync(() -> traffic.add(100)).join(); // another thread: not marked
            return null;
        });
        traffic.add(1);
        assertThat(traffic.byStage()).isEqualTo(Map.of("kvflow.backup", 15L, "kvflow.transfer", 3L, HostTraffic.UNATTRIBUTED, 101L));
        assertThat(traffic.bytes("kvflow.write")).isZero();
        assertThat(traffic.total()).isEqualTo(119);
    }

    @Test
    void aMarkIsClearedWhenItsWorkThrows() {
        HostTraffic traffic = new HostTraffic();
        assertThatThrownBy(() -> HostTraffic.during("kvflow.write", () -> {
            throw new IllegalStateException("row out of range");
        })).hasMessage("row out of range");
        traffic.add(8);
        assertThat(traffic.byStage()).isEqualTo(Map.of(HostTraffic.UNATTRIBUTED, 8L));
    }

    @Test
    void aNegativeCountIsRefused() {
        assertThatThrownBy(() -> new HostTraffic().add(-4)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("a negative byte count crossed: -4");
    }

    @Test
    void aHeapMemoryMovesNothingAcross() {
        try (HeapPageMemory heap = new HeapPageMemory()) {
            PageBuffer b = heap.allocate("rank 0 mla", 2, 64);
            heap.write(b, 0, new byte[64], 0, 64);
            heap.read(b, 0, 64, new byte[64], 0);
            assertThat(heap.hostTraffic().total()).isZero();
        }
    }
}
